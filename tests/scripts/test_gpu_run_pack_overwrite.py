"""scripts/gpu/gpu_run.py pack --overwrite builds the pack in a hidden folder beside --out and renames it into place when
whole (fileio.swap_folder_in):
- a pack that fails or is interrupted leaves the earlier pack as it was and no folder of its own (was: the earlier
  pack removed first, and a folder without a manifest left, which the next pack --overwrite refused);
- a new pack that cannot be renamed in, the earlier one already moved aside, puts the earlier one back (was: left
  aside as .gpu-pack.packing-XXXXXXXX.old, so --out was gone);
- an earlier pack holding the temporary files of the atomic writes a killed ``resplit`` or ``evalpack`` left there
  (``.NAME.XXXXXXXX.tmp``) is replaced: they are the pack's, not the user's (was: refused, naming them as files that
  pack did not write)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hf_elmo import fileio
from tests.conftest import load_script

gpu_run = load_script("scripts/gpu/gpu_run.py")


def earlier_pack(tmp_path: Path, *left: str) -> tuple[Path, list[str]]:
    """An earlier pack (``manifest.json``, ``part-000`` and the files ``left``, each reading "earlier") in
    ``tmp_path/gpu-pack`` and a tokenised folder beside it; returns the pack and ``pack --overwrite``'s arguments."""
    tokenised, out = tmp_path / "tokenised", tmp_path / "gpu-pack"
    tokenised.mkdir()
    for name in ("train.txt", "valid.txt"):
        (tokenised / name).write_text("the cat sat .\nthe dog ran .\n")
    out.mkdir()
    for name in ("manifest.json", "part-000", *left):
        (out / name).write_text("earlier")
    return out, ["pack", "--tokenised", str(tokenised), "--out", str(out), "--overwrite", "--min-count", "1"]


def assert_earlier_pack_kept(tmp_path: Path, out: Path) -> None:
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
    assert {path.name: path.read_text() for path in out.iterdir()} == {
        "manifest.json": "earlier",
        "part-000": "earlier",
    }


def test_an_interrupted_pack_keeps_the_earlier_one(tmp_path, monkeypatch):
    out, argv = earlier_pack(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(gpu_run, "split_file", interrupted)  # Ctrl-C while the bundle is cut into parts
    with pytest.raises(KeyboardInterrupt):
        gpu_run.main(argv)
    assert_earlier_pack_kept(tmp_path, out)
    monkeypatch.undo()
    gpu_run.main(argv)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
    assert (out / "manifest.json").read_text() != "earlier"


def test_a_pack_that_cannot_be_renamed_in_puts_the_earlier_one_back(tmp_path, monkeypatch):
    out, argv = earlier_pack(tmp_path)
    real_replace = os.replace

    def renaming_in_fails(source, destination):
        source = Path(source)  # the new pack, built in .gpu-pack.packing-XXXXXXXX/gpu-pack, renamed in
        if source.parent.name.startswith(".gpu-pack.packing-") and source.name == "gpu-pack":
            raise OSError(28, "No space left on device")
        real_replace(source, destination)

    monkeypatch.setattr(fileio.os, "replace", renaming_in_fails)
    with pytest.raises(SystemExit) as exited:
        gpu_run.main(argv)
    monkeypatch.undo()
    assert exited.value.code == 1
    assert_earlier_pack_kept(tmp_path, out)


@pytest.mark.parametrize("left", [".manifest.json.ab_cd123.tmp", ".eval.tar.xz.x1y2z3w4.tmp"])
def test_pack_overwrite_replaces_a_pack_with_a_killed_writes_temporary_file(left, tmp_path):
    out, argv = earlier_pack(tmp_path, left)
    gpu_run.main(argv)
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "part-000"]
