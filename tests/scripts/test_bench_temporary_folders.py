"""scripts/bench_inference.py and scripts/bench_onnx.py remove the folder of random models (and exports) they
write in the temporary folder (was: left there by every run, 105 MB for bench_onnx's small size, gigabytes
for the original size)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def run_script(shared: Path, tmp_path: Path, script: str, *options: str) -> list[str]:
    """Run ``scripts/SCRIPT`` with the small model, one pass of one thread, its temporary folder (``TMPDIR``)
    one of its own; what it leaves there of its own (``bench-*``)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / script), "--repeat", "1", "--threads", "1", *options],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "ELMO_SHARED": str(shared), "TMPDIR": str(temporary)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return sorted(path.name for path in temporary.glob("bench-*"))


@pytest.mark.slow  # ~40 s on 2 cores
def test_bench_inference_leaves_no_temporary_folder(shared, tmp_path):
    options = ["--no-reference", "--sizes", "small", "--batch-sizes", "2", "--n-sentences", "4"]
    assert run_script(shared, tmp_path, "bench_inference.py", *options) == []


@pytest.mark.slow  # ~30 s: the export
def test_bench_onnx_leaves_no_temporary_folder(shared, tmp_path):
    assert run_script(shared, tmp_path, "bench_onnx.py", "--batch-sizes", "2", "--n-sentences", "4") == []
