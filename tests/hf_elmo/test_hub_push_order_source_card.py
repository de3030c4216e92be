"""tok.push_to_hub(repo) or model.config.push_to_hub(repo), before or after model.push_to_hub(repo), to a repository
without a card: the card pushed (the first push's, which the next keeps) has the licence and attribution of the card
the model, tokenizer and config were loaded from (was: the tokenizer's or config's push first uploaded transformers'
blank card, which the model's push then kept: no licence or attribution)."""

from __future__ import annotations

import pytest
from huggingface_hub import ModelCard
from huggingface_hub.errors import EntryNotFoundError

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from tests.hf_elmo.test_hub_push_source_card import _ATTRIBUTION, _carded_folder, _uploads
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


def _card_once_pushed(monkeypatch) -> dict[str, bytes]:
    """The mocked Hub's files, its card there (``ModelCard.load``) once a push has uploaded one."""
    uploaded = _uploads(monkeypatch)

    def load(repo_id, **kwargs):
        if "README.md" not in uploaded:
            raise EntryNotFoundError("no README.md")
        return ModelCard(uploaded["README.md"].decode())

    monkeypatch.setattr(ModelCard, "load", load)
    return uploaded


@pytest.mark.parametrize("other", ["tokenizer", "config"])
@pytest.mark.parametrize("first", ["other", "model"])
def test_the_card_has_the_sources_terms_whichever_pushes_first(hub, monkeypatch, tmp_path, other, first):  # noqa: F811
    uploaded, source = _card_once_pushed(monkeypatch), _carded_folder(tmp_path / "source")
    model = ElmoModel.from_pretrained(source)  # its config knows the source (a config loaded alone does not)
    pushes = [ElmoTokenizer.from_pretrained(source) if other == "tokenizer" else model.config, model]
    for pushed in pushes if first == "other" else pushes[::-1]:
        pushed.push_to_hub("me/x")
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license == "cc-by-sa-3.0"
    assert _ATTRIBUTION in card.text.split("\n\n")


@pytest.mark.parametrize("other", [ElmoTokenizer, ElmoConfig])
def test_a_tokenizer_or_config_from_scratch_keeps_transformers_card(hub, monkeypatch, other):  # noqa: F811
    uploaded = _card_once_pushed(monkeypatch)
    pushed = ElmoTokenizer() if other is ElmoTokenizer else ElmoConfig()
    pushed.push_to_hub("me/x")
    card = ModelCard(uploaded["README.md"].decode())
    assert card.data.license is None and "[More Information Needed]" in card.text
