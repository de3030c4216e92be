"""README's activation-checkpointing figure, what autograd keeps for the backward pass of the
shipped shape's LM in a training step (the command it cites: scripts/bench_pretrain.py, small
preset, 1024 padded tokens a step, --steps 6), computed again: memory is a count, not a timing."""

from __future__ import annotations

import re

import pytest
import torch

from tests.conftest import REPO, load_script

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())


@pytest.mark.slow  # two warm-up steps of the small shape: about 10 s on a quiet 2-core VM
def test_checkpointing_keeps_the_mib_the_readme_states(monkeypatch):
    found = re.findall(
        r"autograd keeps ([\d.]+) MiB instead of ([\d.]+) MiB, at .*?--tokens-per-batch (\d+) --steps (\d+)`", README
    )
    assert len(found) == 1, found
    checkpointed, plain, tokens, steps = found[0]
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from, as when run as a script
    bench = load_script("scripts/bench_pretrain.py")
    vocab, batches = bench.synthetic_batches(int(tokens), int(steps), 30_000)  # the script's default vocabulary
    kept = {
        checkpointing: bench.PathRun(
            "small", "fast", vocab, batches, 1024, False, torch.device("cpu"), False, checkpointing
        ).kept
        / 2**20
        for checkpointing in (False, True)
    }
    assert kept == {False: pytest.approx(float(plain), abs=0.05), True: pytest.approx(float(checkpointed), abs=0.05)}
