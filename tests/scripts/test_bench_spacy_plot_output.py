"""scripts/bench_spacy.py checks ``--plot-layer-weights`` before anything trains, as the figure is written last."""

import subprocess
import sys

import pytest

from tests.scripts.test_bench_spacy import SCRIPT


@pytest.mark.parametrize("name", ["notes.txt", "weights.pdf"])
def test_a_plot_output_that_would_be_refused_at_the_end_is_refused_in_one_line_before_any_pipeline_trains(
    name, tmp_path
):
    """Was: refused by save_layer_weights only after every pipeline had trained (hours on full corpora)."""
    plot = tmp_path / name
    if name == "notes.txt":
        plot.write_text("mine")
    output = tmp_path / "bench"
    command = [sys.executable, str(SCRIPT), "--elmo", "x", "--plot-layer-weights", str(plot), "--output", str(output)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    last = run.stderr.splitlines()[-1]
    assert last.startswith(f"bench_spacy.py: error: --plot-layer-weights: {plot} "), last
    assert not output.exists()
    assert plot.read_text() == "mine" if name == "notes.txt" else not plot.exists()
