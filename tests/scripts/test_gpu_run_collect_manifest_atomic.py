"""``gpu_run.py collect`` writes its cut's manifest whole or not at all: one that fails midway (a full disk) leaves
none, and the next call cuts the folder again (was: written in place, a truncated manifest left, on which every later
collect stopped with a JSON error)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.conftest import load_script

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_a_cut_whose_manifest_fails_midway_is_cut_again(tmp_path, monkeypatch, capsys):
    work, checkpoint = tmp_path / "work", tmp_path / "work" / "model.checkpoint"
    checkpoint.mkdir(parents=True)
    (checkpoint / "checkpoint.pt").write_bytes(b"step 10" * 4000)
    argv = ["collect", "--what", "checkpoint", "--work", str(work), "--piece-mib", "0.01", "--out"]
    write_text = Path.write_text

    def fill_the_disk(self, data, *args, **kwargs):  # half the manifest, then a full disk's error
        write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", fill_the_disk)
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main([*argv, str(tmp_path / "call1")])
    assert stopped.value.code == 1
    assert "No space left on device" in capsys.readouterr().err.splitlines()[-1]
    assert not (work / "collect-checkpoint" / "manifest.json").exists()
    monkeypatch.undo()
    gpu_run.main([*argv, str(tmp_path / "call2")])
    gpu_run.main(["assemble", str(tmp_path / "call2"), "--what", "checkpoint", "--dest", str(tmp_path / "local")])
    assert (tmp_path / "local" / "model.checkpoint" / "checkpoint.pt").read_bytes() == b"step 10" * 4000
