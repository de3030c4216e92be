"""hf_elmo.fileio: atomic files, folders built aside, one writer per output, stale staging folders."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hf_elmo.fileio import (
    OutputBusyError,
    atomic_file,
    build_aside,
    exclusive_lock,
    remove_stale_staging,
    write_text_atomic,
)

# Holds an flock on the path in argv[1] (a file or a folder) until killed; prints "held" once it does.
HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | (0 if os.path.isdir(sys.argv[1]) else os.O_CREAT))
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(600)
"""


@contextmanager
def unwritable(folder: Path) -> Iterator[Path]:
    """``folder`` made unwritable: mode 0555 for a normal user, the immutable flag for root (who
    ignores modes); skips the test where neither is possible."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root where chattr +i is unavailable: cannot make a folder unwritable")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


@contextmanager
def lock_held_by_another_process(path: Path) -> Iterator[subprocess.Popen]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_atomic_file_replaces_only_when_complete_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "data.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_file(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed mid-write")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt"]
    write_text_atomic(target, "new")
    assert target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt"]


def test_written_files_and_folders_get_the_umask_modes(tmp_path):
    old = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "a.txt", "x")
        with build_aside(tmp_path / "folder", overwrite=False) as staging:
            (staging / "b.txt").write_text("y")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "folder").stat().st_mode) == 0o755


def test_a_second_holder_of_an_output_lock_fails_at_once(tmp_path):
    lock = tmp_path / "out.lock"
    with lock_held_by_another_process(lock):
        started = time.monotonic()
        with pytest.raises(OutputBusyError, match="busy"):
            with exclusive_lock(lock, "busy"):
                pass
        assert time.monotonic() - started < 1
    with exclusive_lock(lock, "busy"):  # the holder is gone: its lock went with it
        assert lock.exists()
    assert not lock.exists()


def test_build_aside_replaces_the_folder_or_leaves_it_untouched(tmp_path):
    out = tmp_path / "model"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with build_aside(out, overwrite=True) as staging:
            (staging / "new.txt").write_text("new")
            raise RuntimeError("failed build")
    assert [p.name for p in out.iterdir()] == ["old.txt"]
    with build_aside(out, overwrite=True) as staging:
        (staging / "new.txt").write_text("new")
    assert [p.name for p in out.iterdir()] == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_build_aside_refuses_an_output_holding_an_input_even_with_overwrite(tmp_path):
    (tmp_path / "d").mkdir()
    source = tmp_path / "d" / "options.json"
    source.write_text("{}")
    for out in (tmp_path / "d", tmp_path):
        with pytest.raises(ValueError, match="holds the input"):
            with build_aside(out, overwrite=True, inputs=[source]):
                pass
    assert source.read_text() == "{}"


def test_only_staging_folders_of_dead_processes_are_removed(tmp_path):
    out = tmp_path / "model"
    stale, live = tmp_path / ".model.building-abcd1234", tmp_path / ".model.building-live0000"
    other = tmp_path / ".other.building-abcd1234"  # another output's
    for folder in (stale, live, other):
        folder.mkdir()
        (folder / "config.json").write_text("{}")
    with lock_held_by_another_process(live):
        remove_stale_staging(out)
        assert not stale.exists() and live.is_dir() and other.is_dir()


def test_an_unwritable_parent_is_one_clear_error(tmp_path):
    with unwritable(tmp_path / "ro") as folder:
        with pytest.raises(PermissionError, match=r"cannot write .*ro/model: .*ro is not writable"):
            with build_aside(folder / "model", overwrite=False):
                pass
