"""save_pretrained(push_to_hub=True) of the model, config and tokenizer push alike: each saves the folder whole,
then makes the repository and uploads with the same settings, and a push that fails leaves the folder saved and
says so in the same line (the config and tokenizer made the repository first, through transformers: without a
network they saved nothing, took no create_pr, and the model's token did not reach create_repo)."""

from __future__ import annotations

import pytest
from transformers.utils.hub import PushToHubMixin

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo.configuration_elmo import SAVE_LOCK
from tests.hf_elmo.test_heads import tiny_config
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub, unreachable  # noqa: F401  # (hub: a fixture)

SAVED = ["model", "config", "tokenizer"]


def saver(saved: str):
    model = ElmoModel(tiny_config())
    return {"model": model, "config": model.config, "tokenizer": ElmoTokenizer()}[saved]


def loads(saved: str, folder) -> None:
    {"model": ElmoModel, "config": ElmoConfig, "tokenizer": ElmoTokenizer}[saved].from_pretrained(folder)


@pytest.mark.parametrize("saved", SAVED)
def test_without_a_network_the_folder_is_saved_whole_and_the_line_names_it(saved, monkeypatch, tmp_path):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", unreachable)
    pushed, folder = saver(saved), tmp_path / "elmo"
    with pytest.raises(OSError) as caught:
        pushed.save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    assert str(caught.value) == (
        f"{type(pushed).__name__}.save_pretrained(push_to_hub=True) me/elmo: the request to the Hub failed "
        "(ConnectError: [Errno -2] Name or service not known); check the network and proxy settings (HTTPS_PROXY); "
        f"the folder {folder} is saved whole: upload it later (hf upload me/elmo {folder})"
    )
    loads(saved, folder)


@pytest.mark.parametrize("saved", SAVED)
def test_an_upload_that_fails_leaves_the_folder_saved_and_says_so(saved, hub, monkeypatch, tmp_path):  # noqa: F811
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", unreachable)
    folder = tmp_path / "elmo"
    with pytest.raises(OSError, match=rf"; the folder {folder} is saved whole: upload it later"):
        saver(saved).save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    loads(saved, folder)


@pytest.mark.parametrize("saved", SAVED)
def test_the_repository_and_upload_get_the_same_settings_from_each(saved, hub, monkeypatch, tmp_path):  # noqa: F811
    uploads = []
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", lambda self, *a, **k: uploads.append((a, k)))
    folder = tmp_path / "elmo"
    folder.mkdir()
    (folder / "notes.txt").write_text("the user's own")
    saver(saved).save_pretrained(
        folder, push_to_hub=True, private=True, token="hf_x", commit_message="first", create_pr=True
    )
    assert hub["create_repo"] == ("elmo", {"exist_ok": True, "private": True, "token": "hf_x"})
    (working_dir, repo_id, timestamps), settings = uploads[0]
    timestamps.pop(SAVE_LOCK)  # dated never to change: not uploaded
    assert (str(working_dir), repo_id, list(timestamps)) == (str(folder), "me/elmo", ["notes.txt"])
    assert settings == {"commit_message": "first", "token": "hf_x", "create_pr": True}
    assert (folder / "README.md").is_file() is (saved == "model")  # a model card, as transformers writes one
