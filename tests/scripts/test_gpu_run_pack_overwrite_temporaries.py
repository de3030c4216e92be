"""``gpu_run.py pack --overwrite`` replaces an earlier pack that holds the temporary files of the atomic writes a killed
``resplit`` or ``evalpack`` left there (``.NAME.XXXXXXXX.tmp``): they are the pack's, not the user's (was: refused,
naming them as files that pack did not write)."""

from __future__ import annotations

import pytest

from tests.conftest import load_script

gpu_run = load_script("scripts/gpu/gpu_run.py")


@pytest.mark.parametrize("left", [".manifest.json.ab_cd123.tmp", ".eval.tar.xz.x1y2z3w4.tmp"])
def test_pack_overwrite_replaces_a_pack_with_a_killed_writes_temporary_file(left, tmp_path):
    tokenised, out = tmp_path / "tokenised", tmp_path / "gpu-pack"
    tokenised.mkdir()
    for name in ("train.txt", "valid.txt"):
        (tokenised / name).write_text("the cat sat .\nthe dog ran .\n")
    out.mkdir()
    for name in ("manifest.json", "part-000", left):
        (out / name).write_text("earlier")
    gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(out), "--overwrite", "--min-count", "1"])
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json", "part-000"]
