"""``gpu_run.py evalpack`` puts eval.tar.xz and the pack's manifest in place together: one whose last step, the
rename into place, fails leaves the pack as it was, the manifest naming the bundle that is there (was: the
manifest renamed in first, naming a bundle that the failed rename left out). The pack's parts are not copied."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from tests.conftest import load_script
from tests.hf_elmo.training.test_pretraining import write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")


def _pack(tmp_path: Path) -> tuple[Path, list[str]]:
    """A pack with a part and an earlier eval bundle, and the evalpack arguments for it."""
    pack, wikitext = tmp_path / "gpu-pack", tmp_path / "wiki.test.tokens"
    pack.mkdir()
    (pack / "manifest.json").write_text(json.dumps({"pieces": [{"name": "part-000"}]}))
    (pack / "part-000").write_bytes(b"the part")
    (pack / "eval.tar.xz").write_bytes(b"the earlier bundle")
    wikitext.write_text(" = Heading = \n\n the cat sat on the mat . \n")
    test = write_corpus(tmp_path / "test.txt", n=5)
    return pack, ["evalpack", "--out", str(pack), "--test", str(test), "--wikitext", str(wikitext)]


def test_an_evalpack_whose_rename_into_place_fails_leaves_the_pack_as_it_was(tmp_path, monkeypatch, capsys):
    pack, argv = _pack(tmp_path)
    before = {path.name: path.read_bytes() for path in pack.iterdir()}
    replace, failed = os.replace, []

    def last_rename_fails(source, target, *args, **kwargs):  # the new bundle or pack renamed into place, once
        if not failed and Path(target) in (pack, pack / "eval.tar.xz"):
            failed.append(target)
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return replace(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", last_rename_fails)
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(argv)
    assert stopped.value.code == 1 and failed
    assert "Invalid cross-device link" in capsys.readouterr().err.splitlines()[-1]
    assert {path.name: path.read_bytes() for path in pack.iterdir()} == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "test.txt", "wiki.test.tokens"]


def test_the_manifest_names_the_new_bundle_and_the_parts_are_the_packs_own(tmp_path):
    pack, argv = _pack(tmp_path)
    part = (pack / "part-000").stat()
    gpu_run.main(argv)
    record = json.loads((pack / "manifest.json").read_text())["eval"]
    assert record["sha256"] == gpu_run.sha256(pack / "eval.tar.xz")
    assert (pack / "part-000").stat().st_ino == part.st_ino  # linked into the new pack, not copied
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "test.txt", "wiki.test.tokens"]


def test_a_pack_reached_through_a_symbolic_link_stays_behind_the_link(tmp_path):
    pack, argv = _pack(tmp_path)
    (tmp_path / "link").symlink_to(pack)
    gpu_run.main([*argv[:2], str(tmp_path / "link"), *argv[3:]])
    assert (tmp_path / "link").is_symlink() and "eval" in json.loads((pack / "manifest.json").read_text())
