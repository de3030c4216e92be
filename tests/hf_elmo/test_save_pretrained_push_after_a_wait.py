"""save_pretrained(push_to_hub=True) that waited for another save into its folder pushes the files it wrote, not the
other save's: the files there before it are taken once it holds the folder (was: before it waited, so a file that
only the other save wrote was uploaded with this one)."""

from __future__ import annotations

import threading

import pytest
from transformers.utils.hub import PushToHubMixin

from hf_elmo import configuration_elmo
from hf_elmo.configuration_elmo import one_save_at_a_time
from tests.hf_elmo.test_hub_push_after_save import SAVED, saver
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


@pytest.mark.parametrize("saved", SAVED)
def test_a_save_that_waited_pushes_none_of_the_other_saves_files(saved, hub, monkeypatch, tmp_path):  # noqa: F811
    uploads = []
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", lambda self, *a, **k: uploads.append(a))
    folder, held, waiting = tmp_path / "elmo", threading.Event(), threading.Event()
    monkeypatch.setattr(configuration_elmo._logger, "warning", lambda message: waiting.set())

    def the_other_save() -> None:  # holds the folder until this save waits for it, then writes its own file
        with one_save_at_a_time(str(folder)):
            held.set()
            assert waiting.wait(timeout=60)
            (folder / "other.txt").write_text("the other save's")

    other = threading.Thread(target=the_other_save)
    other.start()
    assert held.wait(timeout=60)
    saver(saved).save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    other.join(timeout=60)
    (_, _, timestamps), *_ = uploads
    assert waiting.is_set() and "other.txt" in timestamps  # as there before this save: not uploaded
