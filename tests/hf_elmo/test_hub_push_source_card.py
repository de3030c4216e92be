"""push_to_hub of a model loaded from a folder whose card has a licence and attribution (the shipped model's,
elmo convert's, elmo pretrain's), and its save_pretrained(folder, push_to_hub=True) into a folder without a card,
push to a repository without a card transformers' card (its tags kept) with the source's licence in the metadata
and its attribution paragraph (was: transformers' blank card, the weights without licence or attribution); a
Hub source is the card's base_model; a repository with a card keeps it; a model from scratch keeps transformers'
card."""

from __future__ import annotations

from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import ModelCard
from huggingface_hub.errors import EntryNotFoundError

from hf_elmo import ElmoModel
from hf_elmo import model_card as model_card_module
from hf_elmo.model_card import ATTRIBUTION, write_model_card
from tests.hf_elmo.test_heads import tiny_config
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)

_ATTRIBUTION = f"{ATTRIBUTION} Trained on text by the contributors of Wikipedia."


def _uploads(monkeypatch) -> dict[str, bytes]:
    uploaded: dict[str, bytes] = {}

    def create_commit(self, repo_id, operations, **kwargs):
        uploaded.update({op.path_in_repo: Path(op.path_or_fileobj).read_bytes() for op in operations})

    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit", create_commit)
    return uploaded


def _carded_folder(folder: Path) -> Path:
    ElmoModel(tiny_config()).save_pretrained(folder)
    write_model_card(folder, "My ELMo", _ATTRIBUTION, {"data": "wiki"}, license="cc-by-sa-3.0")
    return folder


def _push(model: ElmoModel, how: str, tmp_path: Path) -> None:
    if how == "push_to_hub":
        model.push_to_hub("me/x")
    else:
        model.save_pretrained(tmp_path / "fine-tuned", push_to_hub=True, repo_id="me/x")


@pytest.mark.parametrize("how", ["push_to_hub", "save_pretrained"])
def test_the_source_cards_licence_and_attribution_go_with_transformers_card(hub, monkeypatch, tmp_path, how):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    _push(ElmoModel.from_pretrained(_carded_folder(tmp_path / "source")), how, tmp_path)
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license == "cc-by-sa-3.0"
    assert card.data.library_name == "transformers" and card.data.base_model is None  # a local folder: no Hub id
    assert _ATTRIBUTION in card.text.split("\n\n")
    assert "This is the model card of a 🤗 transformers model" in card.text  # transformers' card, not the source's
    assert "## Provenance" not in card.text


def test_the_shipped_models_push_carries_its_licence_and_attribution(hub, monkeypatch):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    ElmoModel.from_pretrained("hf-elmo:elmo-2x1024-en").push_to_hub("me/x")
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license == "cc-by-sa-3.0"
    assert any(
        part.startswith(f"{ATTRIBUTION} Trained on text from English Wikipedia") for part in card.text.split("\n\n")
    )


@pytest.mark.parametrize("how", ["push_to_hub", "save_pretrained"])
def test_a_hub_source_is_the_base_model(hub, monkeypatch, tmp_path, how):  # noqa: F811
    uploaded, source = _uploads(monkeypatch), _carded_folder(tmp_path / "source")
    model = ElmoModel.from_pretrained(source)
    model.name_or_path = model.config._name_or_path = "someone/elmo"
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda repo_id, filename, **kwargs: str(source / filename))
    _push(model, how, tmp_path)
    card = ModelCard(uploaded["README.md"].decode())
    assert (card.data.base_model, card.data.license) == ("someone/elmo", "cc-by-sa-3.0")


def test_a_hub_source_without_a_card_is_the_base_model_alone(hub, monkeypatch):  # noqa: F811
    uploaded, model = _uploads(monkeypatch), ElmoModel(tiny_config())
    model.name_or_path = model.config._name_or_path = "someone/elmo"

    def no_card(*args, **kwargs):
        raise EntryNotFoundError("no README.md")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", no_card)
    model.push_to_hub("me/x")
    card = ModelCard(uploaded["README.md"].decode())
    assert (card.data.base_model, card.data.license) == ("someone/elmo", None)


@pytest.mark.parametrize("how", ["push_to_hub", "save_pretrained"])
def test_a_model_from_scratch_keeps_transformers_card(hub, monkeypatch, tmp_path, how):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    monkeypatch.setattr(model_card_module, "card_license_and_attribution", lambda folder: pytest.fail("read"))
    _push(ElmoModel(tiny_config()), how, tmp_path)
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license is None and ATTRIBUTION not in card.text
    assert card.data.library_name == "transformers"


@pytest.mark.parametrize("how", ["push_to_hub", "save_pretrained"])
def test_a_repository_with_a_card_keeps_it(hub, monkeypatch, tmp_path, how):  # noqa: F811
    uploaded = _uploads(monkeypatch)
    on_the_hub = "---\nlicense: mit\n---\n# The repository's card\n"
    monkeypatch.setattr(ModelCard, "load", lambda repo_id, **kwargs: ModelCard(on_the_hub))
    _push(ElmoModel.from_pretrained(_carded_folder(tmp_path / "source")), how, tmp_path)
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license == "mit" and ATTRIBUTION not in card.text
