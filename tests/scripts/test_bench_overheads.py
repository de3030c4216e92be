"""scripts/bench_overheads.py runs each of its measurements end to end, small: the sides' median
seconds and their ratio to the first, under the machine's line (the commands that the figures in
modeling_elmo.py, spacy_elmo/batching.py, README.md, BENCHMARKS.md and embed/run.py name)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.parametrize(
    "what, options, sides",
    [
        ("hook", ["--n-sentences", "4", "--batch-size", "2"], ["no hook", "transformers' input-embedding hook"] * 2),
        ("long-doc", ["--doc-tokens", "60"], ["in its sentences", "read whole"]),
        ("hdf5-write", ["--n-sentences", "5"], ["elmo embed's low-level calls", "create_dataset"]),
        ("float16", ["--n-sentences", "2", "--batch-size", "2"], ["float32", "float16"]),
    ],
)
def test_bench_overheads_prints_both_sides_and_their_ratio(what, options, sides):
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_overheads.py"), what, *options, "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO / "scripts",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert re.fullmatch(
        r"# CPU .+ \(\d+ cores, load [\d.]+\), 1 torch thread\(s\); median of 1 alternating .+", lines[0]
    )
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| side")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == sides
    for first, other in zip(rows[::2], rows[1::2]):  # a table of two sides each
        assert first.endswith("| 1.00x |") and re.search(r"\| \d+\.\d\dx \|$", other)
