"""What the model cards say of their perplexities: scripts/ship_model.py says once what the two comparisons with
the baseline share (was: "the word-embedding baseline has the lower perplexity on every evaluation set" twice, in
the shipped card too), and the card ``elmo pretrain`` writes says what its average is, the geometric mean
sqrt(forward x backward) (was: "average" alone, which reads as the arithmetic mean)."""

from __future__ import annotations

import pytest

from hf_elmo.configuration_elmo import ElmoConfig
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.pretrained import SHIPPED
from hf_elmo.training.output import model_card_fields
from hf_elmo.training.settings import PretrainSettings
from tests.conftest import load_script
from tests.spacy_elmo.pipeline_helpers import TINY


@pytest.fixture(scope="module")
def comparisons():
    return load_script("scripts/ship_model.py").comparisons


def figures(ours: float, baseline: float) -> dict:
    """Ours and the baseline with these average perplexities on two sets."""
    return {
        side: {name: {"average": value} for name in ("held-out test", "WikiText-2 test")}
        for side, value in (("ours", ours), ("baseline", baseline))
    }


SMALLER = "at 20,000 tokens (this model's snapshot there against a baseline of those tokens)"


def test_two_comparisons_that_say_the_same_are_one_sentence(comparisons):
    said = comparisons({**figures(150.0, 120.0), "smaller_budget": {"tokens": 20_000, **figures(200.0, 180.0)}})
    assert said == (
        f"At the same budget, and {SMALLER}, the word-embedding baseline has the lower perplexity on every evaluation "
        "set."
    )


def test_two_comparisons_that_differ_are_two_sentences(comparisons):
    said = comparisons({**figures(90.0, 120.0), "smaller_budget": {"tokens": 20_000, **figures(200.0, 180.0)}})
    assert said == (
        "At the same budget the char CNN has the lower perplexity on every evaluation set. "
        f"A{SMALLER[1:]} the word-embedding baseline has the lower perplexity on every evaluation set."
    )


def test_the_shipped_card_says_it_once():
    for folder in SHIPPED.values():
        card = (folder / "README.md").read_text(encoding="utf-8")
        assert card.count("has the lower perplexity") <= 1, folder


def test_the_pretrain_card_says_the_average_is_the_geometric_mean(tmp_path):
    model = ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=10, softmax="full"))
    settings = PretrainSettings(train_file=str(tmp_path / "c.txt"), output_dir=str(tmp_path / "out"))
    valid = {"forward": 100.0, "backward": 121.0, "average": 110.0, "predictions": 50, "unk_rate": 0.0}
    position = {"step": 1, "tokens_seen": 10, "elapsed": 1.0}
    row = model_card_fields(model, settings, position, {"valid": valid})["provenance"]["perplexity (valid)"]
    assert row.startswith("forward 100.00, backward 121.00, average 110.00 = sqrt(forward x backward) (full "), row
