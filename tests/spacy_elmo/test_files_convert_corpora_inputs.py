"""``scripts/convert_corpora.py`` reads its corpus as every text input of hf_elmo is read
(``hf_elmo.corpus.read_lines``): a gzip file decompressed; a latin-1 byte, a UTF-16 file and NUL bytes refused in one
line naming the file (and line) and what to do (was: ``'utf-8' codec can't decode byte 0xe9 in position 25``, of no
file, the same for a gzip file); and an input that holds no sentence is refused, writing nothing (was: an empty
``.spacy`` file, ``0 docs``, for ``spacy train`` to fail on far from here)."""

from __future__ import annotations

import gzip

import pytest
from spacy.tokens import DocBin
from spacy.vocab import Vocab

from tests.spacy_elmo.test_configs_and_corpora import convert_corpora

CONLL = "-DOCSTART- -X- -X- O\n\nCafé NNP B-NP B-PER\nsat VBD B-VP O\n\n"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            CONLL.encode("latin-1"),
            "{path}:3: not valid UTF-8 (byte 0xe9 at character 4); the corpus must be UTF-8 text",
        ),
        (
            CONLL.encode("utf-16"),
            "{path} is UTF-16 text (it starts with the byte-order mark FF FE), not UTF-8: convert it, e.g. iconv -f "
            "UTF-16 -t UTF-8 {path} > {converted}",
        ),
        (
            b"-DOCSTART- -X- -X- O\n\nthe\x00 DT B-NP O\n",
            "{path}:3: NUL byte at character 4 (binary data, not text); the corpus must be UTF-8 text",
        ),
        (b"", "{path} holds no conll2003 sentences (an empty file?); nothing was written"),
    ],
    ids=["latin-1", "utf-16", "nul", "empty"],
)
def test_an_input_that_is_no_utf8_corpus_is_one_line_naming_it(tmp_path, capsys, data, said):
    path = tmp_path / "eng.train"
    path.write_bytes(data)
    run = convert_corpora(capsys, "conll2003", str(path), str(tmp_path / "out" / "train.spacy"))
    converted = tmp_path / "eng-utf8.train"
    assert run.returncode == 1
    assert run.stderr == f"convert_corpora.py: error: {said.format(path=path, converted=converted)}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eng.train"]


def test_a_gzip_corpus_is_read_decompressed(tmp_path, capsys):
    path = tmp_path / "eng.train.gz"
    path.write_bytes(gzip.compress(CONLL.encode()))
    run = convert_corpora(capsys, "conll2003", str(path), str(tmp_path / "train.spacy"))
    assert run.returncode == 0, run.stderr
    (doc,) = DocBin().from_disk(tmp_path / "train.spacy").get_docs(Vocab())
    assert [token.text for token in doc] == ["Café", "sat"] and [ent.text for ent in doc.ents] == ["Café"]
