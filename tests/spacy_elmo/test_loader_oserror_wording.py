"""A model the elmo component cannot load for a reason of the system's (a config.json it may not read) is said at
its config setting as command-line tools say it, ``FILE: REASON`` (``error_text``), not Python's ``[Errno 13]
Permission denied: 'FILE'``."""

from __future__ import annotations

import errno
import os

import pytest
from thinc.api import ConfigValidationError

from spacy_elmo.bilm import loaded_at_setting

DENIED = os.strerror(errno.EACCES)


def test_an_unreadable_model_is_said_without_the_errno(tmp_path):
    config = tmp_path / "model" / "config.json"

    def loader():
        raise PermissionError(errno.EACCES, DENIED, str(config))

    with pytest.raises(ConfigValidationError) as refused:
        loaded_at_setting(loader, "the elmo component", ["components", "elmo", "model"], "cannot load the model")
    assert refused.value.errors == [{"loc": ["components", "elmo", "model"], "msg": f"{config}: {DENIED}"}]
