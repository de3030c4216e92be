"""scripts/prepare_pretrain_en.py refuses an output folder that cannot be written in one line before a shard is
read (was: PermissionError's traceback when it made the folder), and a run that fails leaves no output folder
that it made."""

from __future__ import annotations

import errno
import os

import pytest

from tests.hf_elmo.test_fileio import refuse_writes_in
from tests.scripts.test_prepare_pretrain_en import write_shard
from tests.scripts.test_prepare_pretrain_en_output import InlinePool, prepare


@pytest.fixture(autouse=True)
def inline_pool(monkeypatch):
    monkeypatch.setattr(prepare, "Pool", InlinePool)


def test_an_output_folder_that_cannot_be_written_is_one_line_before_the_shards_are_read(tmp_path, monkeypatch, capsys):
    write_shard(tmp_path / "raw", paragraphs=3)
    (tmp_path / "ro").mkdir()
    refuse_writes_in(monkeypatch, tmp_path / "ro", errno.EACCES)
    monkeypatch.setattr(prepare, "tokenise_shard", lambda job: pytest.fail("a shard was read"))
    out = tmp_path / "ro" / "tok"
    with pytest.raises(SystemExit) as stopped:
        prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1"])
    assert stopped.value.code == 1
    assert capsys.readouterr().err == (
        f"prepare_pretrain_en.py: error: cannot write {out / 'train.txt'}: {tmp_path / 'ro'} is not writable "
        f"({os.strerror(errno.EACCES)})\n"
    )


def test_a_failed_run_leaves_no_output_folder_it_made(tmp_path, monkeypatch):
    write_shard(tmp_path / "raw", paragraphs=3)

    def fails(job):
        raise RuntimeError("stopped")

    monkeypatch.setattr(prepare, "tokenise_shard", fails)
    with pytest.raises(RuntimeError, match="stopped"):
        prepare.main([str(tmp_path / "raw"), str(tmp_path / "new" / "tok"), "--processes", "1"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw"]
