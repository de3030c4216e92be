"""scripts/bench_embed.py runs end to end: elmo embed's phases timed, for two checkouts side by side."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.conftest import REPO


def test_bench_embed_times_each_phase_and_reports_the_peak_rss_of_two_checkouts_with_the_model_stubbed(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("".join(f"the cat sat on mat {i} .\n" for i in range(30)), encoding="utf-8")
    rows_file = tmp_path / "rows.json"
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_embed.py"), str(text), "--stub-model", "--against", str(REPO)]
        + ["--stub-device-us", "20", "--json", str(rows_file), "--layers", "average", "--device", "cpu"]
        + ["--threads", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(rows_file.read_text())
    assert (report["lines"], report["tokens"]) == (30, 210) and len(report["sides"]) == 2
    for side in report["sides"].values():
        assert side["phases"]["write chunk files"] > 0 and side["phases"]["merge into output"] > 0
        assert side["total"] >= sum(v for k, v in side["phases"].items() if k != "other")
        assert side["phases"]["forward"] >= 210 * 20e-6  # the stub's wait, as a device's
        assert side["peak_rss_mb"] > 100  # the worker's: torch alone takes more
    assert "biLM forward stubbed (zeros), waiting 20 µs a token as a device" in result.stdout
    assert "| **host: total less forward** |" in result.stdout
    assert "| peak RSS, MiB |" in result.stdout
    assert re.search(r"^\| tokens/s against this checkout \| 1\.00x \| \d+\.\d\dx \|$", result.stdout, re.M), (
        result.stdout
    )
    assert re.search(
        r"; CPU .+ \(\d+ cores, load [\d.]+\), 1 threads, 4,096 padded tokens a batch; fastest of 1 run\(s\) per side",
        result.stdout,
    ), result.stdout
