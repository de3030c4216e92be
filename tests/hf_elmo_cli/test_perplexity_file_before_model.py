"""`elmo perplexity` reads FILE, and --vocab where given, before the model loads: a missing, binary or empty FILE or
--vocab is one line at once, not after seconds of loading (gigabytes for an original model's softmax) (was: read
after the model)."""

from __future__ import annotations

import pytest

import hf_elmo.training.evaluation
from hf_elmo.cli import main as elmo_main


@pytest.fixture(autouse=True)
def no_model(monkeypatch):
    def load_lm(*args, **kwargs):
        raise AssertionError("the model was loaded before FILE was read")

    monkeypatch.setattr(hf_elmo.training.evaluation, "load_lm", load_lm)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "the corpus file {path}: no such file"),
        (b"a\x00b\n", "{path}:1: NUL byte at character 2 (binary data, not text); the corpus must be UTF-8 text"),
        (b"\n\n", "{path} holds no tokens (empty file or only blank lines)"),
    ],
    ids=["missing", "binary", "blank"],
)
def test_a_file_that_cannot_be_scored_is_refused_before_the_model_loads(content, said, tmp_path, capsys):
    path = tmp_path / "test.txt"
    if content is not None:
        path.write_bytes(content)
    assert elmo_main(["perplexity", str(path), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"elmo perplexity: error: {said.format(path=path)}\n"
    assert captured.out == ""


def test_a_missing_vocab_is_refused_before_the_model_loads(tmp_path, capsys):
    text = tmp_path / "test.txt"
    text.write_text("the cat sat .\n", encoding="utf-8")
    missing = tmp_path / "vocab.txt"
    assert elmo_main(["perplexity", str(text), "--vocab", str(missing), "--no-progress"]) == 2
    assert capsys.readouterr().err == f"elmo perplexity: error: the vocabulary file {missing}: no such file\n"
