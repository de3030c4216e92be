"""scripts/bench_onnx.py runs end to end: ONNX Runtime and eager timed side by side, outputs compared."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.slow
def test_bench_onnx_times_onnx_runtime_beside_eager_and_checks_they_agree(shared, tmp_path):
    rows_file = tmp_path / "rows.json"
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "bench_onnx.py"),
            "--batch-sizes",
            "1",
            "4",
            "--n-sentences",
            "8",
            "--repeat",
            "1",
            "--threads",
            "1",
            "--json",
            str(rows_file),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "ELMO_SHARED": str(shared)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(rows_file.read_text())
    assert [row["batch_size"] for row in report["rows"]] == [1, 4]
    assert all(row["eager_tokens_per_s"] > 0 and row["onnx_tokens_per_s"] > 0 for row in report["rows"])
    assert report["max_abs_diff"] < 1e-5
    assert "| small | 4 |" in result.stdout
    assert re.search(
        r"^# CPU .+ \(\d+ cores, load [\d.]+\), 1 threads, small, .*; random weights of seed 0; ", result.stdout, re.M
    )
