"""save_pretrained(push_to_hub=True) into a folder where a killed save left its hidden folder
(``.elmo-saving-XXXXXXXX``) that this save removes only in part (a file in it held open, on Windows; files of another
user's): the push, which holds the folder's lock, still never uploads what is left of it, changed since the save
began (transformers uploads a folder changed since then, whole). Why
``_a_saves_own`` counts those folders a save's own although no live save makes one during a push."""

from __future__ import annotations

import shutil

from hf_elmo import configuration_elmo
from hf_elmo.configuration_elmo import SAVE_ASIDE, is_save_aside
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_files_save_pretrained_one_at_a_time import SAVES
from tests.hf_elmo.test_files_save_without_flock import committed  # noqa: F401  # (a fixture)
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


def test_a_killed_saves_folder_that_cannot_be_removed_is_never_pushed(hub, committed, tmp_path, monkeypatch):  # noqa: F811
    folder = tmp_path / "elmo"
    clipped_random_model().save_pretrained(folder)
    left = folder / f"{SAVE_ASIDE}abcd1234"
    left.mkdir()
    (left / "config.json").write_text("{}")
    (left / "model.safetensors").write_text("half-written")
    rmtree = shutil.rmtree

    def removes_what_it_can(path, *args, **kwargs):  # rmtree(ignore_errors=True): config.json cannot be removed
        if str(path) != str(left):
            rmtree(path, *args, **kwargs)
        else:
            (left / "model.safetensors").unlink()

    monkeypatch.setattr(configuration_elmo.shutil, "rmtree", removes_what_it_can)
    SAVES["model"]().save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    assert (left / "config.json").is_file()
    (uploaded,) = committed
    assert "config.json" in uploaded
    assert not any(is_save_aside(name.split("/")[0]) for name in uploaded), uploaded
