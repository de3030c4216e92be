"""save_pretrained(push_to_hub=True) never uploads the hidden folder of a save (``.elmo-saving-XXXXXXXX``) found in
the folder as it pushes (another save waits for the push to end, test_files_push_holds_the_folder.py, but one that
took no lock, or a killed save, may leave one; was: uploaded, half-written, as transformers uploads each new name)."""

from __future__ import annotations

import math

from transformers.utils.hub import PushToHubMixin

from hf_elmo.configuration_elmo import SAVE_ASIDE, SAVE_LOCK, is_save_aside
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_files_save_pretrained_one_at_a_time import SAVES
from tests.hf_elmo.test_files_save_without_flock import committed  # noqa: F401  # (a fixture)
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


def test_another_saves_hidden_folder_is_never_pushed(hub, committed, tmp_path, monkeypatch):  # noqa: F811
    folder = tmp_path / "elmo"
    clipped_random_model().save_pretrained(folder)
    upload = PushToHubMixin._upload_modified_files

    def another_save_starts(self, working_dir, *args, **kwargs):
        aside = folder / f"{SAVE_ASIDE}abcd1234"
        aside.mkdir()
        (aside / "config.json").write_text("{}")
        (folder / SAVE_LOCK).touch()
        return upload(self, working_dir, *args, **kwargs)

    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", another_save_starts)
    SAVES["model"]().save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    (uploaded,) = committed
    assert "config.json" in uploaded
    assert not any(is_save_aside(name.split("/")[0]) or name == SAVE_LOCK for name in uploaded), uploaded


def test_the_pushed_folder_dates_hidden_save_folders_never_to_change(hub, tmp_path, monkeypatch):  # noqa: F811
    uploads = []
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", lambda self, *a, **k: uploads.append(a))
    clipped_random_model().save_pretrained(tmp_path / "elmo", push_to_hub=True, repo_id="me/elmo")
    (_, _, timestamps), *_ = uploads
    assert f"{SAVE_ASIDE}abcd1234" in timestamps and timestamps[f"{SAVE_ASIDE}abcd1234"] == math.inf
    assert timestamps[SAVE_LOCK] == math.inf and f"{SAVE_ASIDE}x" not in timestamps
