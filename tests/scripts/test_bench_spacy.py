"""scripts/bench_spacy.py end to end on a few sentences (slow: it trains four pipelines)."""

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "bench_spacy.py"


@pytest.mark.slow
def test_bench_trains_baseline_and_elmo_and_prints_the_table(shared, tiny_elmo_dir, tmp_path):
    command = [
        sys.executable,
        str(SCRIPT),
        "--elmo",
        str(tiny_elmo_dir),
        "--tasks",
        "sst2",
        "conll2003",
        "--max-train",
        "40",
        "--max-eval",
        "20",
        "--epochs",
        "2",
        "--output",
        str(tmp_path),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert [(r["task"], r["pipeline"]) for r in results] == [
        ("sst2", "baseline"),
        ("sst2", "ELMo"),
        ("conll2003", "baseline"),
        ("conll2003", "ELMo"),
    ]
    assert all(len(r["epoch_seconds"]) == 2 and 0.0 <= r["test"] <= 100.0 for r in results)
    assert "| sst2 | ELMo |" in run.stdout
