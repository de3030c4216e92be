"""scripts/gpu/gpu_run.py pack builds the pack in a hidden folder beside --out and renames it into place when whole:
a pack --overwrite that fails or is interrupted leaves the earlier pack as it was and no folder of its own (was: the
earlier pack removed first, and a folder without a manifest left, which the next pack --overwrite refused)."""

from __future__ import annotations

import pytest

from tests.conftest import load_script

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_an_interrupted_pack_keeps_the_earlier_one(tmp_path, monkeypatch):
    tokenised, out = tmp_path / "tokenised", tmp_path / "gpu-pack"
    tokenised.mkdir()
    for name in ("train.txt", "valid.txt"):
        (tokenised / name).write_text("the cat sat .\nthe dog ran .\n")
    out.mkdir()
    for name in ("manifest.json", "part-000"):
        (out / name).write_text("earlier")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(gpu_run, "split_file", interrupted)  # Ctrl-C while the bundle is cut into parts
    with pytest.raises(KeyboardInterrupt):
        gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(out), "--overwrite", "--min-count", "1"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
    assert {path.name: path.read_text() for path in out.iterdir()} == {
        "manifest.json": "earlier",
        "part-000": "earlier",
    }
    monkeypatch.undo()
    gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(out), "--overwrite", "--min-count", "1"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
    assert (out / "manifest.json").read_text() != "earlier"
