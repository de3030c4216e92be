"""elmo embed, elmo perplexity and elmo pretrain refuse --batch-size (transformers' and allennlp elmo's name for a batch
of sentences) in one usage error naming --tokens-per-batch and its default, read from the parser (was: "unrecognized
arguments: --batch-size 8", elmo pretrain's "(did you mean --vocab-size?)", and elmo embed's own wording, its default
written in it a second time)."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize(
    ("argv", "default"),
    [
        (["embed", "in.txt", "out.hdf5", "--batch-size", "32"], 4096),  # allennlp elmo's option too
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


@pytest.mark.parametrize("command", ["embed", "perplexity", "pretrain"])
def test_batch_size_is_not_in_the_help(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--batch-size" not in capsys.readouterr().out
