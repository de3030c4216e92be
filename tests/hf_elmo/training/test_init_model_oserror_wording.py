"""An ``--init-model`` that cannot be read for a reason of the system's is said as ``--init-model: FILE: REASON``
(``error_text``), not ``--init-model: [Errno 13] Permission denied: 'FILE'``."""

from __future__ import annotations

import errno
import os

import pytest

import hf_elmo.loading
from hf_elmo.training.settings import PretrainSettings, resolve_init_model

DENIED = os.strerror(errno.EACCES)


def test_an_unreadable_init_model_is_said_without_the_errno(tmp_path, monkeypatch):
    config = tmp_path / "base" / "config.json"

    def resolve_model(name, *args, **kwargs):
        raise PermissionError(errno.EACCES, DENIED, str(config))

    monkeypatch.setattr(hf_elmo.loading, "resolve_model", resolve_model)
    settings = PretrainSettings(
        train_file=str(tmp_path / "c.txt"), output_dir=str(tmp_path / "out"), init_model=str(tmp_path / "base")
    )
    with pytest.raises(PermissionError) as refused:
        resolve_init_model(settings)
    assert str(refused.value) == f"--init-model: {config}: {DENIED}"
