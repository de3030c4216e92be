"""``gpu_run.py evalpack`` writes eval.tar.xz and the pack's manifest whole or not at all: one that fails midway (a
full disk) leaves both as they were (was: both written in place, a truncated bundle or manifest left)."""

from __future__ import annotations

import errno
import json
import lzma
from pathlib import Path

import pytest

from tests.conftest import load_script
from tests.hf_elmo.training.test_pretraining import write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")


@pytest.mark.parametrize("fails", ["eval.tar.xz", "manifest.json"])
def test_an_evalpack_that_fails_midway_leaves_the_pack_as_it_was(fails, tmp_path, monkeypatch, capsys):
    pack, wikitext = tmp_path / "gpu-pack", tmp_path / "wiki.test.tokens"
    pack.mkdir()
    (pack / "manifest.json").write_text(json.dumps({"pieces": [{"name": "part-000"}]}))
    (pack / "eval.tar.xz").write_bytes(b"the earlier bundle")
    before = {path.name: path.read_bytes() for path in pack.iterdir()}
    wikitext.write_text(" = Heading = \n\n the cat sat on the mat . \n")
    argv = ["evalpack", "--out", str(pack), "--test", str(write_corpus(tmp_path / "test.txt", n=5)), "--wikitext"]
    open_xz, write_text = lzma.open, Path.write_text

    def write_part(target, *args, **kwargs):  # into the pack (or its new copy): part of the bundle, then a full disk
        if Path(target).parent.name != pack.name:
            return open_xz(target, *args, **kwargs)
        Path(target).write_bytes(b"\xfd7zXZ\x00")
        raise OSError(errno.ENOSPC, "No space left on device")

    def write_half(self, data, *args, **kwargs):  # into the pack (or its new copy): half the manifest, then a full disk
        if self.parent.name != pack.name:
            return write_text(self, data, *args, **kwargs)
        write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    if fails == "eval.tar.xz":
        monkeypatch.setattr(lzma, "open", write_part)
    else:
        monkeypatch.setattr(Path, "write_text", write_half)
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main([*argv, str(wikitext)])
    assert stopped.value.code == 1
    assert "No space left on device" in capsys.readouterr().err.splitlines()[-1]
    assert {path.name: path.read_bytes() for path in pack.iterdir()} == before  # no temporary file left either
    monkeypatch.undo()
    gpu_run.main([*argv, str(wikitext)])
    record = json.loads((pack / "manifest.json").read_text())["eval"]
    assert record["sha256"] == gpu_run.sha256(pack / "eval.tar.xz")
