"""`--threads` beyond any machine's cores is a usage error of every command that takes it, before anything
runs (was: accepted, then a traceback, "RuntimeError: can't start new thread", or OpenMP's abort,
"libgomp: Thread creation failed", once torch started them, after the model had loaded)."""

from __future__ import annotations

import pytest
import torch

from hf_elmo.cli import main as elmo_main
from hf_elmo_cli.commands._args import MAX_THREADS

ARGV = {
    "embed": ["embed", "in.txt", "out.hdf5"],
    "perplexity": ["perplexity", "in.txt"],
    "demo": ["demo"],
    "export": ["export", "model", "out"],
    "pretrain": ["pretrain", "in.txt", "out", "--epochs", "1"],
}


@pytest.mark.parametrize("command", sorted(ARGV))
def test_threads_beyond_the_bound_is_a_usage_error(command, monkeypatch, capsys):
    threads: list[int] = []
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    with pytest.raises(SystemExit) as stopped:
        elmo_main([*ARGV[command], "--threads", "100000"])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        f"elmo {command}: error: argument --threads: must be an integer in 1..{MAX_THREADS}, got '100000'"
    )
    assert captured.out == "" and threads == []


def test_threads_up_to_the_bound_are_taken():
    from hf_elmo_cli import build_parser

    assert build_parser().parse_args(["demo", "--threads", str(MAX_THREADS)]).threads == MAX_THREADS
