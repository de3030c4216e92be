"""A push that carries the source card's licence into transformers' card (model, tokenizer, config; push_to_hub
and save_pretrained(push_to_hub=True)) names it in the card's '- **License:**' line too (was: the metadata said
cc-by-sa-3.0 while the body said '[More Information Needed]'); without a licence carried the line is as it was."""

from __future__ import annotations

import pytest
from huggingface_hub import ModelCard

from hf_elmo import ElmoModel, ElmoTokenizer
from hf_elmo.model_card import write_model_card
from tests.hf_elmo.test_heads import tiny_config
from tests.hf_elmo.test_hub_push_source_card import _ATTRIBUTION, _carded_folder, _push, _uploads
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)

_NO_LICENSE = "- **License:** [More Information Needed]"


def _license_lines(card_text: str) -> list[str]:
    return [line for line in card_text.splitlines() if line.startswith("- **License:**")]


@pytest.mark.parametrize("how", ["push_to_hub", "save_pretrained"])
def test_the_models_card_names_the_carried_licence(hub, monkeypatch, tmp_path, how):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    _push(ElmoModel.from_pretrained(_carded_folder(tmp_path / "source")), how, tmp_path)
    assert _license_lines(uploaded["README.md"].decode()) == ["- **License:** cc-by-sa-3.0"]


def test_the_tokenizers_card_names_the_carried_licence(hub, monkeypatch, tmp_path):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    ElmoTokenizer.from_pretrained(_carded_folder(tmp_path / "source")).push_to_hub("me/x")
    assert _license_lines(uploaded["README.md"].decode()) == ["- **License:** cc-by-sa-3.0"]


def test_without_a_licence_carried_the_line_is_as_it_was(hub, monkeypatch, tmp_path):  # noqa: F811
    uploaded, source = _uploads(monkeypatch), tmp_path / "source"
    ElmoModel(tiny_config()).save_pretrained(source)
    write_model_card(source, "My ELMo", _ATTRIBUTION, {"data": "wiki"}, license=None)  # no licence
    ElmoModel.from_pretrained(source).push_to_hub("me/x")
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license is None and _ATTRIBUTION in card.text.split("\n\n")
    assert _license_lines(card.text) == [_NO_LICENSE]


def test_the_shipped_models_card_names_its_licence(hub, monkeypatch):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    ElmoModel.from_pretrained("hf-elmo:elmo-2x1024-en").push_to_hub("me/x")
    assert _license_lines(uploaded["README.md"].decode()) == ["- **License:** cc-by-sa-3.0"]
