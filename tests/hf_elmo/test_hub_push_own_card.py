"""save_pretrained(folder, push_to_hub=True) of a model whose folder has its own model card (elmo convert's, elmo
pretrain's, the user's) uploads that card as it is to a repository that has none, and keeps it in the folder (was:
replaced there and on the Hub by transformers' blank template, its licence, attribution and provenance lost); a
repository that has a card keeps it, as in transformers."""

from __future__ import annotations

from huggingface_hub import ModelCard

from hf_elmo import ElmoModel
from tests.hf_elmo.test_hub_push_source_card import _carded_folder, _uploads
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


def test_the_folders_own_card_is_uploaded_as_it_is_to_a_repository_without_one(hub, monkeypatch, tmp_path):  # noqa: F811
    uploaded, folder = _uploads(monkeypatch), tmp_path / "my-elmo"
    card = (_carded_folder(folder) / "README.md").read_text()
    ElmoModel.from_pretrained(folder).save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    assert uploaded["README.md"].decode() == card
    assert (folder / "README.md").read_text() == card
    assert {"config.json", "model.safetensors"} <= set(uploaded)


def test_a_repository_with_a_card_keeps_it_as_in_transformers(hub, monkeypatch, tmp_path):  # noqa: F811
    uploaded, folder = _uploads(monkeypatch), tmp_path / "my-elmo"
    _carded_folder(folder)
    on_the_hub = "---\nlicense: mit\n---\n# The repository's card\n"
    monkeypatch.setattr(ModelCard, "load", lambda repo_id, **kwargs: ModelCard(on_the_hub))
    ElmoModel.from_pretrained(folder).save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    assert uploaded["README.md"].decode() == (folder / "README.md").read_text() == on_the_hub
