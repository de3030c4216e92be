"""A text input given as ``-`` (stdin, as most tools read it) is refused in one line saying that it cannot be stdin,
by every command that reads text (``hf_elmo.corpus.check_text_file``, the one home: elmo pretrain's training file and
--vocab, elmo perplexity's corpus and --vocab, elmo embed's input). Was: ``the training file -: no such file``, as if
a file named ``-`` were meant, but for elmo embed's own refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.corpus import check_text_file
from hf_elmo_cli import main

REFUSAL = "cannot be stdin ('-'): it is read more than once; save the text to a file"


@pytest.mark.parametrize("what", ["the training file", "the vocabulary file", "the corpus file"])
def test_a_dash_where_no_file_has_that_name_is_refused_as_stdin(what, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=rf"^{what} cannot be stdin \('-'\)"):
        check_text_file("-", what)


def test_a_file_named_dash_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("a b\n", encoding="utf-8")
    assert check_text_file("-", "the corpus file") == Path("-")


def test_elmo_pretrain_refuses_a_training_file_of_dash_in_one_line_writing_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["pretrain", "-", "out", "--epochs", "1", "--no-progress"]) == 2
    assert capsys.readouterr().err == f"elmo pretrain: error: the training file {REFUSAL}\n"
    assert list(tmp_path.iterdir()) == []
