"""Where there is no ``fcntl`` (Windows), hf_elmo imports (was: ``ModuleNotFoundError: No module named 'fcntl'``
from ``fileio`` and ``output_folders``): ``exclusive_lock`` takes filelock's lock on the lock file, a second
holder is refused at once as busy, and the folders built aside or for scratch files are made and removed without
a folder lock. Forced in a subprocess that cannot import ``fcntl`` or ``resource``, and here by setting them None."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hf_elmo import fileio
from hf_elmo.fileio import OutputBusyError, exclusive_lock, scratch_folder
from hf_elmo.output_folders import build_aside

_WITHOUT_FCNTL = """
import sys
from pathlib import Path

import filelock  # its own lock, as on Windows: a lock that the system drops with a killed process
import torch  # noqa: F401
import transformers  # noqa: F401

class NoPosixModules:
    def find_spec(self, name, path=None, target=None):
        if name in ("fcntl", "resource"):
            raise ModuleNotFoundError(f"No module named {name!r}")

for name in ("fcntl", "resource"):
    sys.modules.pop(name, None)
sys.meta_path.insert(0, NoPosixModules())

import hf_elmo
from hf_elmo import fileio, output_folders

assert fileio.fcntl is None and fileio.resource is None
lock = Path(sys.argv[1]) / "out.lock"
with fileio.exclusive_lock(lock, "busy"):
    try:
        with fileio.exclusive_lock(lock, "busy"):
            raise AssertionError("a second holder got the lock")
    except fileio.OutputBusyError as busy:
        print("refused:", busy)
with output_folders.build_aside(Path(sys.argv[1]) / "model", overwrite=False) as staging:
    (staging / "config.json").write_text("{}")
print("imported", hf_elmo.__name__)
"""


def test_hf_elmo_imports_and_locks_without_fcntl(tmp_path):
    run = subprocess.run(
        [sys.executable, "-c", _WITHOUT_FCNTL, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["refused: busy", "imported hf_elmo"]
    assert (tmp_path / "model" / "config.json").is_file()


@pytest.fixture
def no_flock(monkeypatch):
    monkeypatch.setattr(fileio, "fcntl", None)
    monkeypatch.setattr(fileio, "resource", None)


def test_a_second_holder_is_refused_at_once(tmp_path, no_flock):
    lock = tmp_path / "out.lock"
    with exclusive_lock(lock, "out is being written by another run"):
        with pytest.raises(OutputBusyError, match="^out is being written by another run$"):
            with exclusive_lock(lock, "out is being written by another run"):
                pass
    with exclusive_lock(lock, "busy"):  # free again
        pass


def test_scratch_and_staging_folders_are_made_and_removed(tmp_path, no_flock):
    with scratch_folder("elmo-scratch-", tmp_path) as scratch:
        assert scratch.is_dir()
    with build_aside(tmp_path / "model", overwrite=False) as staging:
        (staging / "config.json").write_text("{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    assert fileio.check_file_size_limit(1 << 60, "the file") is None
