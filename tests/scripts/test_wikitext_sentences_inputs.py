"""``scripts/wikitext_sentences.py`` reads its input as every text input is read (``hf_elmo.corpus.text_lines``): a
latin-1 byte is one line naming the file and line (was: ``'utf-8' codec can't decode byte 0xe9 in position 10``), a
gzip file is read decompressed (was: the same error), and an input without a sentence (an empty file, headings only)
is refused, writing nothing (was: an empty output, ``wrote OUT: 0 tokens``, which ``elmo perplexity`` refuses)."""

from __future__ import annotations

import gzip

import pytest

from tests.scripts.test_wikitext_sentences_output import WIKITEXT, run


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (" = Café = \n\n A caf\xe9 . \n".encode("latin-1"), "{path}:1: not valid UTF-8 (byte 0xe9 at character 7)"),
        (b"", "{path} holds no sentences (an empty file?); nothing was written"),
        (b" = Title = \n\n = = Part = = \n", "{path} holds no sentences (an empty file?); nothing was written"),
    ],
    ids=["latin-1", "empty", "headings-only"],
)
def test_an_input_without_utf8_sentences_is_one_line_and_writes_nothing(tmp_path, capsys, data, said):
    path = tmp_path / "wiki.test.tokens"
    path.write_bytes(data)
    code, err = run(capsys, str(path), str(tmp_path / "new" / "out.txt"))
    assert code == 1
    assert err.startswith(f"wikitext_sentences.py: error: {said.format(path=path)}")
    assert len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wiki.test.tokens"]


def test_a_gzip_input_is_read_decompressed(tmp_path, capsys):
    path = tmp_path / "wiki.test.tokens.gz"
    path.write_bytes(gzip.compress(WIKITEXT.encode()))
    code, err = run(capsys, str(path), str(tmp_path / "out.txt"))
    assert code == 0, err
    assert (tmp_path / "out.txt").read_text() == "The cat sat - down .\nA <UNK> dog barked .\n"
