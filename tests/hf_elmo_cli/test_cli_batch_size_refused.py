"""elmo perplexity and elmo pretrain refuse --batch-size (transformers' name for a batch of sentences) in one usage
error naming --tokens-per-batch and its default, as elmo embed does (was: "unrecognized arguments: --batch-size 8",
and elmo pretrain's "(did you mean --vocab-size?)")."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize(
    ("argv", "default"),
    [
        (["perplexity", "in.txt", "--batch-size", "8"], 4096),
        (["perplexity", "--batch-size=8", "in.txt"], 4096),
        (["pretrain", "train.txt", "out", "--epochs", "1", "--batch-size", "8"], 2048),
        (["pretrain", "train.txt", "out", "--epochs", "1", "--batch-size"], 2048),
    ],
)
def test_batch_size_is_refused_naming_tokens_per_batch(argv, default, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"elmo {argv[0]}: error: --batch-size is not elmo {argv[0]}'s option: its batches are counted in padded "
        f"tokens, not sentences; use --tokens-per-batch N (default {default})"
    )


@pytest.mark.parametrize("command", ["perplexity", "pretrain"])
def test_batch_size_is_not_in_the_help(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--batch-size" not in capsys.readouterr().out
