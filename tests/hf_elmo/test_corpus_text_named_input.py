"""A text input that is no text names the input as its caller names it (``read_corpus(what=...)``: ``--text``,
``--valid-file``, the training file), not as "the corpus" whatever it is (was: ``elmo demo --text bin.txt`` said
"the corpus must be UTF-8 text", an argument that elmo demo does not have)."""

from __future__ import annotations

import pytest

from hf_elmo.corpus import CorpusError, read_corpus


@pytest.mark.parametrize(
    ("what", "said"), [(None, "the corpus"), ("--text", "--text"), ("--valid-file", "--valid-file")]
)
def test_a_binary_input_is_named_as_its_caller_names_it(what, said, tmp_path):
    path = tmp_path / "bin.txt"
    path.write_bytes(b"a\x00b\n")
    with pytest.raises(CorpusError) as refused:
        read_corpus(path, what=what)
    assert str(refused.value) == f"{path}:1: NUL byte at character 2 (binary data, not text); {said} must be UTF-8 text"
