"""save_pretrained(push_to_hub=True) of the model, config and tokenizer: the folder is saved whole before the
push, an upload that fails leaves it (was removed with the model in it), and a Hub that cannot be reached is
one line naming the repository and what to do (was the HTTP client's bare ConnectError)."""

from __future__ import annotations

import importlib

import huggingface_hub
import pytest
from huggingface_hub.errors import EntryNotFoundError
from transformers.utils.hub import PushToHubMixin

from hf_elmo import ElmoModel, ElmoTokenizer
from hf_elmo.configuration_elmo import SAVE_LOCK
from tests.hf_elmo.test_heads import tiny_config

CLIENT = importlib.import_module(type(huggingface_hub.get_session()).__module__.split(".")[0])


def unreachable(*args, **kwargs):
    raise CLIENT.ConnectError("[Errno -2] Name or service not known")


@pytest.fixture
def hub(monkeypatch):
    """A Hub whose repositories are made at once and have no model card yet (no request, no retries);
    what create_repo and the upload were given lands in the returned dict."""
    calls: dict = {}

    def create_repo(self, repo_id, **kwargs):
        calls["create_repo"] = (repo_id, kwargs)
        return huggingface_hub.RepoUrl(f"https://huggingface.co/{repo_id if '/' in repo_id else 'me/' + repo_id}")

    def no_card(*args, **kwargs):
        raise EntryNotFoundError("no README.md")

    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", create_repo)
    monkeypatch.setattr(huggingface_hub.ModelCard, "load", no_card)
    return calls


def test_an_upload_that_fails_keeps_the_saved_folder_and_says_so_in_one_line(hub, monkeypatch, tmp_path):
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", unreachable)
    model = ElmoModel(tiny_config())
    folder = tmp_path / "new"
    with pytest.raises(OSError) as caught:
        model.save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    assert str(caught.value) == (
        "ElmoModel.save_pretrained(push_to_hub=True) me/elmo: the request to the Hub failed (ConnectError: "
        "[Errno -2] Name or service not known); check the network and proxy settings (HTTPS_PROXY); the folder "
        f"{folder} is saved whole: upload it later (hf upload me/elmo {folder})"
    )
    loaded = ElmoModel.from_pretrained(folder)
    assert all((a == b).all() for a, b in zip(loaded.state_dict().values(), model.state_dict().values()))
    assert (folder / "README.md").is_file()


def test_the_push_uploads_the_saved_files_to_the_repository_made_with_its_settings(hub, monkeypatch, tmp_path):
    uploads = []
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", lambda self, *a, **k: uploads.append((a, k)))
    folder = tmp_path / "elmo"
    folder.mkdir()
    (folder / "notes.txt").write_text("the user's own")
    ElmoModel(tiny_config()).save_pretrained(folder, push_to_hub=True, private=True, commit_message="first")
    assert hub["create_repo"] == ("elmo", {"exist_ok": True, "private": True})
    (working_dir, repo_id, timestamps), settings = uploads[0]
    timestamps.pop(SAVE_LOCK)  # dated never to change: not uploaded
    assert (str(working_dir), repo_id, list(timestamps)) == (str(folder), "me/elmo", ["notes.txt"])
    assert settings == {"commit_message": "first", "token": None, "create_pr": False}
    assert {"config.json", "model.safetensors", "README.md"} <= {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("saved", ["model", "config", "tokenizer"])
def test_a_folder_given_with_a_trailing_slash_names_the_repository(saved, monkeypatch, tmp_path):
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", unreachable)
    monkeypatch.chdir(tmp_path)
    model = ElmoModel(tiny_config())
    pushed = {"model": model, "config": model.config, "tokenizer": ElmoTokenizer()}[saved]
    with pytest.raises(OSError, match=r"\.save_pretrained\(push_to_hub=True\) my-elmo: the request to the Hub failed"):
        pushed.save_pretrained("my-elmo/", push_to_hub=True)  # was the repository '' (HFValidationError)
