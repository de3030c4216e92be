"""The model card's provenance table (hf_elmo.model_card)."""

from __future__ import annotations

import torch

from hf_elmo import ElmoConfig
from hf_elmo.model_card import write_model_card


def test_a_provenance_value_with_a_pipe_or_a_line_break_stays_one_table_cell(tmp_path):
    provenance = {"converted from": "opt|x.json (sha256 ab12)", "notes": "two\nlines"}
    card = write_model_card(tmp_path, "t", "d", provenance).read_text()
    rows = [line for line in card.splitlines() if line.startswith("| ") and "what" not in line]
    assert rows[:2] == ["| converted from | opt\\|x.json (sha256 ab12) |", "| notes | two lines |"]


def test_the_card_of_a_word_baseline_gives_usage_code_that_embeds_its_words(word_baseline_folder, monkeypatch):
    """Was: the char-CNN usage (tokenizer char ids into model(**batch)), which a word baseline refuses."""
    card = (word_baseline_folder / "README.md").read_text()
    code = card.split("```python\n")[1].split("```")[0]
    monkeypatch.chdir(word_baseline_folder)  # the card names its own folder "."
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102
    assert namespace["words"] == ["<S>", "Let", "'s", "stick", "to", "improvisation", "</S>"]  # split as spacy:en
    config = ElmoConfig.from_pretrained(word_baseline_folder)
    assert len(namespace["layers"]) == config.n_layers + 1
    assert all(layer.shape == (1, 5, 2 * config.projection_dim) for layer in namespace["layers"])
    assert not torch.equal(namespace["layers"][1], namespace["layers"][2])


def test_the_card_of_a_word_baseline_gives_it_no_char_filters(word_baseline_folder):
    """Was: '... projection 8, 12 char filters, 1 highway, vocabulary 21': the char CNN it does not have."""
    card = (word_baseline_folder / "README.md").read_text()
    (row,) = [line for line in card.splitlines() if line.startswith("| architecture |")]
    assert row == "| architecture | word-embedding (baseline) biLM, 2 layers, LSTM 16, projection 8, vocabulary 21 |"


def test_the_card_of_a_word_baseline_has_no_feature_extraction_tag(word_baseline_folder):
    """Was: tagged feature-extraction, a pipeline that feeds char ids, which the baseline refuses."""
    from huggingface_hub import ModelCard

    assert ModelCard.load(word_baseline_folder / "README.md").data.tags == ["elmo"]
