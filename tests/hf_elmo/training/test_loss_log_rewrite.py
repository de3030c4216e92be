"""A resumed run cuts the loss log back to its step by writing the kept lines aside and renaming them into place:
a full disk (or Ctrl-C) meanwhile keeps the log of the earlier steps (was: the file truncated first, then
rewritten, so that it lost every step)."""

from __future__ import annotations

import builtins
import errno
import os
from pathlib import Path

import pytest

from hf_elmo.training import checkpoints
from hf_elmo.training.checkpoints import LOSS_LOG, open_loss_log

LOG = "step\tepoch\ttokens_seen\ttrain_loss\tseconds\n" + "".join(
    f"{step}\t0\t{step * 10}\t{5 - step / 10:.2f}\t{step}.0\n" for step in range(1, 6)
)


def test_a_resume_cuts_the_log_back_to_its_step_and_appends(tmp_path):
    (tmp_path / LOSS_LOG).write_text(LOG)
    with open_loss_log(tmp_path, 3) as handle:
        handle.write("4\t0\t40\t4.50\t9.0\n")
    assert (tmp_path / LOSS_LOG).read_text() == "".join(LOG.splitlines(keepends=True)[:4]) + "4\t0\t40\t4.50\t9.0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOSS_LOG]


def test_a_full_disk_while_the_log_is_cut_back_keeps_the_earlier_steps(tmp_path, monkeypatch):
    (tmp_path / LOSS_LOG).write_text(LOG)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real_open = builtins.open

    def opened_on_a_full_disk(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if "w" in mode:  # opened for writing (truncated), then nothing fits
            handle.close()
            raise full
        return handle

    def written_on_a_full_disk(self, *args, **kwargs):
        raise full

    monkeypatch.setattr(checkpoints, "open", opened_on_a_full_disk, raising=False)
    monkeypatch.setattr(Path, "write_text", written_on_a_full_disk)
    with pytest.raises(OSError):
        open_loss_log(tmp_path, 3)
    monkeypatch.undo()
    assert (tmp_path / LOSS_LOG).read_text() == LOG
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOSS_LOG]
