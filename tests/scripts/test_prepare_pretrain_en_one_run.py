"""scripts/prepare_pretrain_en.py holds its output folder's lock (``prepare.json.lock``) for its run: a second run
into the same folder meanwhile fails at once in one line, before it reads a shard (was: both ran and moved their
files in, one run's splits beside the other's summary, of other settings)."""

from __future__ import annotations

import pytest

from hf_elmo.fileio import sole_writer
from tests.conftest import load_script
from tests.scripts.test_prepare_pretrain_en import write_shard
from tests.scripts.test_prepare_pretrain_en_output import InlinePool

prepare = load_script("scripts/prepare_pretrain_en.py")


def test_a_second_run_into_the_same_folder_fails_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(prepare, "Pool", InlinePool)
    write_shard(tmp_path / "raw", paragraphs=3)
    out = tmp_path / "tok"
    out.mkdir()
    monkeypatch.setattr(prepare, "tokenise_shard", lambda job: pytest.fail("a shard was read"))
    with sole_writer(out / "prepare.json"), pytest.raises(SystemExit) as stopped:  # the first run, under way
        prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1", "--train-fraction", "0.5"])
    assert stopped.value.code == 1
    assert capsys.readouterr().err == (
        f"prepare_pretrain_en.py: error: {out / 'prepare.json'} is being written by another run (it holds "
        f"{out / 'prepare.json.lock'}); wait for it to end or write elsewhere\n"
    )
    assert list(out.iterdir()) == []
