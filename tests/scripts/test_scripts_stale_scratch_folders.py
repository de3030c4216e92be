"""The scratch folders that a killed run of a script left (``kill -9``: prepare_pretrain_en.py's
``.prepare-XXXXXXXX`` in its output folder, bench_embed.py's ``bench-embed-XXXXXXXX`` in the temporary folder)
are removed by its next run (``fileio.scratch_folder``)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO, load_script
from tests.scripts.test_prepare_pretrain_en import write_shard
from tests.scripts.test_prepare_pretrain_en_output import InlinePool

prepare = load_script("scripts/prepare_pretrain_en.py")


def test_prepare_removes_the_folder_of_a_killed_run_and_keeps_the_user_s(tmp_path, monkeypatch):
    """Was: left in the output folder, with the shards' parts it held, by every killed run."""
    monkeypatch.setattr(prepare, "Pool", InlinePool)
    write_shard(tmp_path / "raw", paragraphs=3)
    out = tmp_path / "tok"
    (out / ".prepare-k1ll3d_9").mkdir(parents=True)
    (out / ".prepare-k1ll3d_9" / "wiki_00.train.txt").write_text("a part")
    (out / ".prepare-notes").mkdir()
    prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1"])
    assert sorted(p.name for p in out.iterdir()) == [
        ".prepare-notes",
        "prepare.json",
        "test.txt",
        "train.txt",
        "valid.txt",
    ]


def test_bench_embed_removes_the_folder_of_a_killed_run_and_leaves_none_of_its_own(tmp_path):
    temporary = tmp_path / "tmp"
    (temporary / "bench-embed-k1ll3d_9").mkdir(parents=True)
    (temporary / "bench-embed-k1ll3d_9" / "out.hdf5").write_bytes(b"half")
    text = tmp_path / "in.txt"
    text.write_text("the cat sat .\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_embed.py"), str(text), "--stub-model", "--device", "cpu"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert not any(temporary.iterdir())
