"""Loading a model folder that an ``elmo`` command, killed (kill -9, a real one) between moving the earlier folder aside
and moving its new one in, left missing: the error names where the earlier one is and how to get it back (was: only
"no such local file or folder", the earlier model hidden as .NAME.building-XXXXXXXX.old beside it)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from hf_elmo import ElmoModel
from hf_elmo.subfolders import ModelNotFoundError
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_fileio import KILL_BETWEEN_RENAMES


def test_the_error_names_the_earlier_folder_that_a_killed_command_moved_aside(tmp_path):
    out = tmp_path / "model"
    clipped_random_model().save_pretrained(out)
    killed = subprocess.run([sys.executable, "-c", KILL_BETWEEN_RENAMES, str(out)], timeout=120)
    assert killed.returncode == -signal.SIGKILL and not out.exists()
    (old,) = [path for path in tmp_path.iterdir() if path.name.endswith(".old")]
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained(out)
    assert str(caught.value).endswith(
        f"; a command killed as it replaced {out} left the earlier one at {old}: run that command again (it puts the "
        f"folder back first), or rename {old.name} to model"
    )
    old.rename(out)
    ElmoModel.from_pretrained(out)


def test_a_missing_folder_that_nothing_moved_aside_gets_no_such_hint(tmp_path):
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained(tmp_path / "model")
    assert str(caught.value).endswith("and not a Hub id (owner/name)")
