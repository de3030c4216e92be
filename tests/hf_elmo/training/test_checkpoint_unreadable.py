"""A checkpoint file that this process may not read is said as the system says it, naming the file: it is not
called damaged, with the advice to delete the run's checkpoints (was: "... is damaged
(PermissionError: [Errno 13] Permission denied: '...'); delete FOLDER to start the run again")."""

from __future__ import annotations

import errno
import os

import pytest
import torch

from hf_elmo.messages import error_text
from hf_elmo.training import checkpoints


def test_an_unreadable_checkpoint_is_not_called_damaged(tmp_path, monkeypatch):
    path = tmp_path / "checkpoint.pt"
    torch.save({"step": 1}, path)

    def denied(file, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))

    monkeypatch.setattr(torch, "load", denied)
    with pytest.raises(PermissionError) as refused:
        checkpoints._torch_load(path, tmp_path)
    assert error_text(refused.value) == f"{path}: {os.strerror(errno.EACCES)}"


def test_a_damaged_checkpoint_is_still_called_damaged(tmp_path):
    path = tmp_path / "checkpoint.pt"
    path.write_bytes(b"\x00\xff garbage")
    with pytest.raises(ValueError, match=f"{path} is damaged .*; delete {tmp_path} to start the run again"):
        checkpoints._torch_load(path, tmp_path)
