"""``gpu_run.py resplit`` is whole or not at all: the new parts go under numbers no part has, then the manifest
(atomically), then the parts it no longer names are removed, so a resplit that fails midway (a full disk) leaves the
pack as it was (was: the parts removed first and the new ones written in place, a manifest naming parts that no
longer existed left)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from tests.conftest import load_script
from tests.hf_elmo.training.test_pretraining import write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")


def _pack(tmp_path: Path) -> Path:
    tokenised, pack = tmp_path / "tok", tmp_path / "gpu-pack"
    tokenised.mkdir()
    write_corpus(tokenised / "train.txt", n=300)
    write_corpus(tokenised / "valid.txt", n=20, seed=1)
    gpu_run.main(
        ["pack", "--tokenised", str(tokenised), "--out", str(pack), "--part-mib", "0.0005", "--min-count", "1"]
    )
    return pack


def _contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@pytest.mark.parametrize("fails", ["part", "manifest"])
def test_a_resplit_that_fails_midway_leaves_the_pack_as_it_was(fails, tmp_path, monkeypatch, capsys):
    pack = _pack(tmp_path)
    before = _contents(pack)
    write = {"part": Path.write_bytes, "manifest": Path.write_text}[fails]
    written = []

    def fill_the_disk(self, data, *args, **kwargs):  # the second part, or the manifest: half, then a full disk's error
        written.append(self.name)
        if fails == "part" and len(written) != 2:
            return write(self, data, *args, **kwargs)
        write(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, {"part": "write_bytes", "manifest": "write_text"}[fails], fill_the_disk)
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(["resplit", "--out", str(pack), "--part-mib", "0.0002"])
    assert stopped.value.code == 1
    assert "No space left on device" in capsys.readouterr().err.splitlines()[-1]
    assert _contents(pack) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tok"]


def test_a_resplit_names_parts_that_are_there_and_removes_the_earlier_ones(tmp_path, capsys):
    pack = _pack(tmp_path)
    earlier = json.loads((pack / "manifest.json").read_text())
    (pack / "part-050").write_bytes(b"a part that a killed resplit left")
    gpu_run.main(["resplit", "--out", str(pack), "--part-mib", "0.0002"])
    pieces = json.loads((pack / "manifest.json").read_text())["pieces"]
    assert len(pieces) > len(earlier["pieces"])
    assert sorted(path.name for path in pack.iterdir()) == sorted(["manifest.json", *(p["name"] for p in pieces)])
    gpu_run.main(["resplit", "--out", str(pack), "--part-mib", "0.0005"])  # the numbers freed are taken again
    assert [p["name"] for p in json.loads((pack / "manifest.json").read_text())["pieces"]] == [
        p["name"] for p in earlier["pieces"]
    ]
