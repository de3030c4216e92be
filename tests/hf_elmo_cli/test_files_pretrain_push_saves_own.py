"""``elmo pretrain --push-to-hub`` uploads its model folder without a save's own files (``SAVES_OWN``, as the
model's push): the ``.elmo-saving.lock`` that filelock leaves where there is no flock (Windows; forced here: the
module's ``fcntl`` set to None), and a ``.elmo-moving-in`` or hidden ``.elmo-saving-XXXXXXXX`` folder of a save into
it (was: all uploaded, the lock file with every push there)."""

from __future__ import annotations

from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub.utils import filter_repo_objects

from hf_elmo import configuration_elmo
from hf_elmo.configuration_elmo import MOVING_IN, SAVE_LOCK
from hf_elmo_cli.commands import pretrain as pretrain_command
from tests.hf_elmo.training.test_pretrain_safety import pretrain
from tests.hf_elmo.training.test_pretraining import write_corpus


@pytest.fixture
def uploaded(monkeypatch) -> list[str]:
    """The files that ``upload_folder`` would upload (its own filter, with the patterns it was given)."""
    files: list[str] = []

    def upload_folder(self, *, folder_path, repo_id, ignore_patterns=None, **kwargs):
        paths = sorted(p.relative_to(folder_path).as_posix() for p in Path(folder_path).rglob("*") if p.is_file())
        files.extend(filter_repo_objects(paths, ignore_patterns=ignore_patterns))

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_test")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", lambda self, repo_id, **kw: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "upload_folder", upload_folder)
    return files


def test_the_lock_file_that_filelock_leaves_is_not_pushed(tmp_path, monkeypatch, uploaded):
    monkeypatch.setattr(configuration_elmo, "fcntl", None)
    out = tmp_path / "model"
    assert pretrain(write_corpus(tmp_path / "c.txt", n=30), out, "--epochs", "1", "--push-to-hub", "me/elmo") == 0
    assert (out / SAVE_LOCK).is_file()  # left by filelock
    assert "config.json" in uploaded and "model.safetensors" in uploaded
    assert sorted(uploaded) == sorted(p.name for p in out.iterdir() if p.name != SAVE_LOCK)


def test_a_saves_own_files_and_folders_are_not_pushed(tmp_path, uploaded):
    out = tmp_path / "model"
    (out / ".elmo-saving-abcd1234").mkdir(parents=True)
    for name in ("config.json", SAVE_LOCK, MOVING_IN, ".elmo-saving-abcd1234/model.safetensors", ".notes"):
        (out / name).write_text("{}")
    pretrain_command.push_to_hub(out, "me/elmo")
    assert uploaded == [".notes", "config.json"]
