"""The shipped model's published perplexity holds: recomputed from the package's weights on
WikiText-2 test (slow: the whole test set through the full softmax, a few minutes on a CPU)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hf_elmo.cli import main as elmo_main
from hf_elmo.pretrained import DEFAULT_MODEL, DEFAULT_MODEL_NAME
from tests.conftest import REPO


@pytest.mark.slow
def test_shipped_models_wikitext2_perplexity_is_the_one_its_card_and_the_readme_state(shared, tmp_path, capsys):
    sentences = tmp_path / "wt2-test.txt"
    script = REPO / "scripts" / "wikitext_sentences.py"
    source = shared / "data" / "wikitext-2" / "wiki.test.tokens"
    subprocess.run([sys.executable, str(script), str(source), str(sentences)], check=True, capture_output=True)
    assert elmo_main(["perplexity", DEFAULT_MODEL_NAME, str(sentences), "--unk-token", "<unk>", "--json"]) == 0
    measured = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    figures = json.loads((DEFAULT_MODEL / "training.json").read_text())["figures"]["ours"]
    claimed = next(value for name, value in figures.items() if name.startswith("WikiText-2 test"))
    for direction in ("forward", "backward", "average"):
        assert measured[direction] == pytest.approx(claimed[direction], rel=1e-4), direction
    stated = f"{claimed['forward']:.1f} / {claimed['backward']:.1f} / {claimed['average']:.1f}"
    assert stated in (DEFAULT_MODEL / "README.md").read_text()
    assert stated in (REPO / "README.md").read_text().replace("**", "")  # bold figures there


def test_the_card_and_the_readme_state_every_recorded_perplexity_of_the_model_and_its_baselines():
    """The baselines' weights did not come back from the GPU: their figures are the record in
    training.json (``figures``), which the card and README must state as recorded."""
    figures = json.loads((DEFAULT_MODEL / "training.json").read_text())["figures"]
    smaller = figures["smaller_budget"]
    recorded = [figures["ours"], figures["baseline"], smaller["ours"], smaller["baseline"]]
    card, readme = (DEFAULT_MODEL / "README.md").read_text(), (REPO / "README.md").read_text().replace("**", "")
    for values in (value for sets in recorded for value in sets.values()):
        stated = f"{values['forward']:.1f} / {values['backward']:.1f} / {values['average']:.1f}"
        assert stated in card and stated in readme, stated
    assert figures["baseline"]["held-out test (all 12,363 sentences)"]["predictions"] == 330_224
