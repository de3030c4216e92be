"""``fileio.scratch_folder`` in a shared temporary folder: a folder of its prefix that this process cannot open
(another user's run) is left alone, not a crash of the run that found it."""

from __future__ import annotations

import os

from hf_elmo import fileio
from hf_elmo.fileio import scratch_folder


def test_a_folder_of_the_prefix_that_cannot_be_opened_is_left_and_the_run_goes_on(tmp_path, monkeypatch):
    """Was: PermissionError from the look for stale folders, before the run began (root reads every folder, so
    the other user's folder is one that os.open refuses here)."""
    others = tmp_path / "run-0th3rus3"
    others.mkdir()
    real_open = os.open

    def refusing_open(path, *args, **kwargs):
        if os.fspath(path) == os.fspath(others):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(fileio.os, "open", refusing_open)
    with scratch_folder("run-", tmp_path) as folder:
        assert folder.is_dir()
    assert [p.name for p in tmp_path.iterdir()] == ["run-0th3rus3"]
