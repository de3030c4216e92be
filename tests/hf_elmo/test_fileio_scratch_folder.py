"""``fileio.scratch_folder``: a run's folder of scratch files, removed however the run ends; one that a killed run
left (``kill -9``) is removed by the next run of the same prefix, never a live run's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from hf_elmo.fileio import scratch_folder
from tests.conftest import REPO

HOLD = """
import sys, time
from hf_elmo.fileio import scratch_folder
with scratch_folder("run-", sys.argv[1]) as folder:
    print(folder, flush=True)
    time.sleep(120)
"""


def test_the_folder_is_removed_when_the_block_ends_or_raises(tmp_path):
    with scratch_folder("run-", tmp_path) as folder:
        (folder / "model.bin").write_bytes(b"weights")
    with pytest.raises(RuntimeError), scratch_folder("run-", tmp_path) as failed:
        (failed / "part.txt").write_text("half")
        raise RuntimeError("stopped")
    assert folder.parent == failed.parent == tmp_path and not any(tmp_path.iterdir())


def test_a_killed_run_s_folder_is_removed_by_the_next_run_and_a_live_run_s_kept(tmp_path):
    """Was: every ``kill -9`` left its folder (prepare_pretrain_en.py's ``.prepare-XXXXXXXX``, bench-*)."""
    mine = [tmp_path / "run-notes", tmp_path / "run-abcdefghi", tmp_path / "other-abcdefgh"]  # not run folders
    for folder in mine:
        folder.mkdir()
    live = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        held = tmp_path / os.path.basename(live.stdout.readline().strip())
        (held / "part.txt").write_text("being written")
        with scratch_folder("run-", tmp_path) as folder:
            assert held.is_dir() and (held / "part.txt").is_file()  # a live run's: kept
        assert not folder.exists()
    finally:
        live.send_signal(signal.SIGKILL)
        live.wait()
    assert held.is_dir()  # what kill -9 leaves
    with scratch_folder("run-", tmp_path):
        assert not held.exists()
    assert sorted(tmp_path.iterdir()) == sorted(mine)
