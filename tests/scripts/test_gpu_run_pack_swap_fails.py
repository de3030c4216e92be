"""scripts/gpu/gpu_run.py pack --overwrite: when the new pack cannot be renamed into place (the earlier one already
renamed aside), the earlier pack is put back where it was (fileio.swap_folder_in; was: left aside as
.gpu-pack.packing-XXXXXXXX.old, so --out was gone)."""

from __future__ import annotations

import os

import pytest

from hf_elmo import fileio
from tests.conftest import load_script

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_a_pack_that_cannot_be_renamed_in_puts_the_earlier_one_back(tmp_path, monkeypatch):
    tokenised, out = tmp_path / "tokenised", tmp_path / "gpu-pack"
    tokenised.mkdir()
    for name in ("train.txt", "valid.txt"):
        (tokenised / name).write_text("the cat sat .\nthe dog ran .\n")
    out.mkdir()
    for name in ("manifest.json", "part-000"):
        (out / name).write_text("earlier")
    real_replace = os.replace

    def renaming_in_fails(source, destination):
        name = os.path.basename(source)
        if name.startswith(".gpu-pack.packing-") and not name.endswith(
            ".old"
        ):  # the new pack, after the old went aside
            raise OSError(28, "No space left on device")
        real_replace(source, destination)

    monkeypatch.setattr(fileio.os, "replace", renaming_in_fails)
    with pytest.raises(SystemExit) as exited:
        gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(out), "--overwrite", "--min-count", "1"])
    monkeypatch.undo()
    assert exited.value.code == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
    assert {path.name: path.read_text() for path in out.iterdir()} == {
        "manifest.json": "earlier",
        "part-000": "earlier",
    }
