"""elmo pretrain --pre-tokenizer that is no pre-tokenizer is refused naming the option, its value quoted as every
refused option value is: ``--pre-tokenizer must be 'whitespace' or 'spacy:LANG' (...), got 'moses'`` (was:
``pre_tokenizer must be ..., got the str 'moses'``, the settings field's name, not the option's); the library's
``ElmoTokenizer(pre_tokenizer=...)`` names its parameter."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer
from hf_elmo_cli import main


def test_elmo_pretrain_names_the_option_and_quotes_the_value(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.txt").write_text("the cat sat .\n", encoding="utf-8")
    assert main(["pretrain", "c.txt", "out", "--epochs", "1", "--pre-tokenizer", "moses", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("elmo pretrain: error: --pre-tokenizer must be 'whitespace' or 'spacy:LANG' ")
    assert err.endswith(", got 'moses'\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["c.txt"]


def test_the_tokenizer_names_its_parameter(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("<S>\n</S>\n<UNK>\nthe\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^pre_tokenizer must be .*, got 'moses'$"):
        ElmoTokenizer(vocab_file=str(vocab), pre_tokenizer="moses")
