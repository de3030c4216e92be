"""``gpu_run.py start`` writes WORK/command.json whole or not at all: one that fails midway (a full disk) leaves the
earlier one as it was (was: written in place, a truncated file left)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from tests.conftest import load_script

gpu_run = load_script("scripts/gpu/gpu_run.py")

EARLIER = '{"model": ["the earlier run"]}\n'


def test_a_command_json_that_fails_midway_leaves_the_earlier_one(tmp_path, monkeypatch, capsys):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    (work / "command.json").write_text(EARLIER)
    launched = []
    monkeypatch.setattr(gpu_run, "_unpack", lambda work: work / "data")  # the parts checked and unpacked
    monkeypatch.setattr(gpu_run, "_launch", lambda work, name, command: launched.append(name) or 4242)
    write_text = Path.write_text

    def fill_the_disk(self, data, *args, **kwargs):  # in WORK: half the text, then a full disk's error
        if self.parent != work:
            return write_text(self, data, *args, **kwargs)
        write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", fill_the_disk)
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(["start", "--work", str(work)])
    assert stopped.value.code == 1
    assert "No space left on device" in capsys.readouterr().err.splitlines()[-1]
    assert launched == [gpu_run.RUN_NAME, gpu_run.BASELINE_NAME]
    assert (work / "command.json").read_text() == EARLIER
    assert sorted(path.name for path in work.iterdir()) == ["command.json", "data"]  # no temporary file left
    monkeypatch.undo()
    monkeypatch.setattr(gpu_run, "_unpack", lambda work: work / "data")
    monkeypatch.setattr(gpu_run, "_launch", lambda work, name, command: 4242)
    gpu_run.main(["start", "--work", str(work)])
    assert set(json.loads((work / "command.json").read_text())) == {gpu_run.RUN_NAME, gpu_run.BASELINE_NAME}
