"""The Hub metadata of the model cards: the shipped model's card says its language (en, its training text's, which
the Hub's language filter reads; was: none), and write_model_card writes the language it is given."""

from __future__ import annotations

from huggingface_hub import ModelCard, ModelCardData
from huggingface_hub.repocard import metadata_load

from hf_elmo.model_card import write_model_card
from hf_elmo.pretrained import SHIPPED


def test_the_shipped_card_has_the_metadata_the_hub_reads():
    for folder in SHIPPED.values():
        metadata = metadata_load(folder / "README.md")
        assert metadata == {
            "language": "en",
            "library_name": "transformers",
            "license": "cc-by-sa-3.0",
            "tags": ["elmo", "feature-extraction"],
        }, folder.name
        assert set(metadata) <= set(vars(ModelCardData()))  # fields the Hub knows, none misspelt


def test_a_card_written_with_a_language_has_it_and_one_without_has_none(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "unknown").mkdir()
    assert ModelCard.load(write_model_card(tmp_path / "en", "t", "d", {}, language="en")).data.language == "en"
    assert ModelCard.load(write_model_card(tmp_path / "unknown", "t", "d", {})).data.language is None
