"""scripts/bench_pretrain.py on CPU: a real subprocess times the fast and fused paths side by side."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO

TINY_RUN = [
    "--presets",
    "cpu",
    "--steps",
    "1",
    "--tokens-per-batch",
    "256",
    "--vocab-size",
    "300",
    "--num-sampled",
    "32",
    "--threads",
    "1",
    "--device",
    "cpu",
]


#: A result line: the path (with "+ckpt" under activation checkpointing), tokens/s, MiB kept (then the ratio).
ROW = r"^cpu\s+([\w+]+)\s.*->\s+(\d+) tokens/s,\s+([\d.]+) MiB kept,"


def _bench(*extra: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_pretrain.py"), *TINY_RUN, *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_bench_pretrain_reports_tokens_per_second_of_each_path_on_cpu():
    out = _bench("--implementations", "fast", "fused")
    assert "clip-free; float32" in out.splitlines()[0]
    rates = {m.group(1): float(m.group(2)) for m in re.finditer(ROW, out, re.M)}
    assert set(rates) == {"fast", "fused"} and all(rate > 0 for rate in rates.values())


def test_bench_pretrain_runs_each_path_beside_itself_under_activation_checkpointing_which_keeps_less():
    out = _bench("--implementations", "fast", "--checkpointing")
    rows = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in re.finditer(ROW, out, re.M)}
    assert set(rows) == {"fast", "fast+ckpt"}, out
    assert all(rate > 0 for rate, _ in rows.values())
    assert 0 < rows["fast+ckpt"][1] < rows["fast"][1] / 2, rows


def test_bench_pretrain_says_why_the_fused_path_cannot_run_a_clipping_preset():
    out = _bench("--implementations", "fused", "--clip")
    assert re.search(r"^cpu\s+fused\s+failed: .*cannot clip", out, re.M), out
