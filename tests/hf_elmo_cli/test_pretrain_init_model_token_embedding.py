"""`elmo pretrain --init-model M` takes M's token embedder (the char CNN or the word-embedding baseline)
as it takes M's shape: `--token-embedding` is needed only for a model from scratch, and one that
differs from M's is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hf_elmo.cli import main
from tests.hf_elmo.training.test_pretrain_safety import error_of, files_under
from tests.hf_elmo.training.test_pretraining import TINY_WORD_SHAPE_ARGS, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")

RUN = ["--tokens-per-batch", "128", "--min-count", "1", "--no-progress"]


@pytest.fixture
def word_model(tmp_path: Path) -> Path:
    """A word-embedding baseline written by `elmo pretrain --token-embedding word`."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    argv = ["pretrain", str(corpus), str(tmp_path / "word"), *TINY_WORD_SHAPE_ARGS, "--max-tokens", "50", *RUN]
    assert main([*argv, "--token-embedding", "word"]) == 0
    return tmp_path / "word"


def continue_from(model: Path, out: Path, *extra: str, tokens: int = 50) -> int:
    corpus = model.parent / "c.txt"
    argv = ["pretrain", str(corpus), str(out), "--init-model", str(model), "--max-tokens", str(tokens)]
    return main([*argv, "--tokens-per-batch", "128", "--no-progress", *extra])


def token_embedding_of(folder: Path) -> str:
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))["token_embedding"]


def test_a_word_init_model_is_continued_without_token_embedding(word_model, tmp_path):
    """Was: '--init-model M embeds tokens with 'word', not --token-embedding char_cnn: ...; give
    --token-embedding word', though the init model determines the architecture."""
    assert continue_from(word_model, tmp_path / "more") == 0
    assert token_embedding_of(tmp_path / "more") == "word"
    assert json.loads((tmp_path / "more" / "training.json").read_text())["settings"]["token_embedding"] == "word"
    assert continue_from(word_model, tmp_path / "again", "--token-embedding", "word") == 0  # the same, stated


def test_a_token_embedding_that_differs_from_the_init_models_is_refused_in_one_line(word_model, tmp_path, capsys):
    before = files_under(tmp_path)
    capsys.readouterr()
    assert continue_from(word_model, tmp_path / "more", "--token-embedding", "char_cnn") == 2
    assert error_of(capsys).endswith(
        f"--token-embedding char_cnn differs from --init-model {word_model}, which embeds tokens with 'word': a "
        "continued model keeps its own; drop --token-embedding"
    )
    assert files_under(tmp_path) == before


def test_a_char_cnn_option_for_a_word_init_model_is_refused_not_ignored(word_model, tmp_path, capsys):
    """--filters shapes nothing in a word model; with --token-embedding word given it was refused, without it
    (now that the init model's is taken) it must be too."""
    before = files_under(tmp_path)
    capsys.readouterr()
    assert continue_from(word_model, tmp_path / "more", "--filters", "[[1,4]]") == 2
    assert error_of(capsys).endswith(
        f"--filters: for the char CNN only, which --init-model {word_model} does not have (it embeds words); drop it"
    )
    assert files_under(tmp_path) == before


def test_resuming_a_continued_word_run_without_token_embedding_goes_on(word_model, tmp_path):
    assert continue_from(word_model, tmp_path / "more", "--max-steps", "1", tokens=400) == 0
    assert not (tmp_path / "more").exists()  # stopped at its checkpoint
    assert continue_from(word_model, tmp_path / "more", tokens=400) == 0
    assert token_embedding_of(tmp_path / "more") == "word"
