"""Every reader of a text file refuses a line that is no text alike (``hf_elmo.corpus.check_text_line``): its NUL
byte before its invalid UTF-8 byte, and what the file must be (was: ``text_lines`` named the invalid byte of a line
that holds both, and ``read_corpus`` said a NUL byte without what the corpus must be)."""

from __future__ import annotations

import pytest

from hf_elmo.corpus import CorpusError, read_corpus, text_lines
from hf_elmo.training.vocab import Vocabulary

#: A line with an invalid UTF-8 byte (0xe9, latin-1's é) before a NUL byte.
BOTH = b"<S>\n</S>\n<UNK>\ncaf\xe9 \x00 au lait\n"


@pytest.mark.parametrize(
    ("read", "what"),
    [
        (lambda path: list(text_lines(path)), "the corpus"),
        (read_corpus, "the corpus"),
        (Vocabulary.from_file, "the vocabulary file"),
    ],
    ids=["text_lines", "read_corpus", "vocabulary"],
)
def test_a_line_that_is_no_text_is_refused_alike_by_every_reader(read, what, tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes(BOTH)
    with pytest.raises(CorpusError) as refused:
        read(path)
    assert str(refused.value) == f"{path}:4: NUL byte at character 6 (binary data, not text); {what} must be UTF-8 text"
