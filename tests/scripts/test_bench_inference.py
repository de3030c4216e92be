"""scripts/bench_inference.py runs end to end (our side; AllenNLP's venv is for benchmark runs)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from tests.conftest import REPO


def bench(shared, tmp_path, *options: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Our side only, the small model, one pass of one thread; the printed output and the JSON rows."""
    rows_file = tmp_path / "rows.json"
    command = [sys.executable, str(REPO / "scripts" / "bench_inference.py"), "--no-reference", "--sizes", "small"]
    result = subprocess.run(
        [*command, "--repeat", "1", "--threads", "1", *options, "--json", str(rows_file)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "ELMO_SHARED": str(shared)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result, json.loads(rows_file.read_text())


@pytest.mark.slow  # ~25 s; bf16 is a GPU option
def test_bench_inference_times_our_model_and_reports_the_bf16_error(shared, tmp_path):
    result, (timing, errors) = bench(shared, tmp_path, "--batch-sizes", "4", "--n-sentences", "8", "--bf16")
    assert timing["size"] == "small" and timing["batch_size"] == 4
    assert timing["ours"]["tokens_per_s"] > 0 and timing["ours"]["peak_rss_mb"] > 0
    assert 0 < errors["bf16_mean_abs_error"] <= errors["bf16_max_abs_error"] < 0.1
    assert "| small | 4 | - |" in result.stdout


@pytest.mark.slow  # ~32 s on 2 cores; GraphedElmo itself is checked on CPU in tests/hf_elmo/test_cuda_graphs.py
def test_bench_inference_times_ours_through_cuda_graphs_and_reports_its_difference_and_profiles(shared, tmp_path):
    profiles = tmp_path / "profiles"
    options = ["--batch-sizes", "3", "--n-sentences", "6", "--cuda-graphs", "--profile", str(profiles)]
    result, (timing, parity) = bench(shared, tmp_path, *options)
    assert timing["ours_graphs"]["tokens_per_s"] > 0
    assert 0 <= parity["graphs_max_abs_diff_vs_ours"] < 1e-5  # on CPU: the static biLM, run eagerly
    assert "ours graphs tok/s" in result.stdout
    assert sorted(p.name for p in profiles.iterdir()) == ["small-b3-eager.txt", "small-b3-graphs.txt"]
    for profile in profiles.iterdir():
        report = profile.read_text()
        assert report.startswith("# one pass, 2 batches, device cpu")
        for phase in ("char ids", "token layer", "biLM", "to host"):  # each phase's time a batch, host / device
            assert re.search(rf"^{phase}: [\d,]+ / 0$", report, re.MULTILINE), (phase, report[:500])
        assert "Self CPU time total" in report and "aten::" in report  # the operators' table


def test_bench_inference_keeps_the_rows_measured_before_it_is_stopped(shared, tmp_path):
    """A GPU call's time limit may stop the run: the JSON holds every row printed so far."""
    rows_file = tmp_path / "rows.json"
    command = [sys.executable, str(REPO / "scripts" / "bench_inference.py"), "--no-reference", "--sizes", "small"]
    command += ["--batch-sizes", "2", "3", "--n-sentences", "6", "--repeat", "1", "--threads", "1"]
    process = subprocess.Popen(
        [*command, "--json", str(rows_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "ELMO_SHARED": str(shared)},
        start_new_session=True,  # its worker too is stopped below
    )
    try:
        first_row = next(line for line in process.stdout if line.startswith("{"))
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert json.loads(rows_file.read_text()) == [json.loads(first_row)]
