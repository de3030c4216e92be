"""``write_text_atomic(..., make_folders=True)``: the one home of a script's output option written into a folder
that does not exist yet (the benchmarks' ``--json``, which each made with ``path.parent.mkdir`` first); a write
that fails leaves none of the folders it made."""

from __future__ import annotations

import os

import pytest

from hf_elmo.fileio import write_text_atomic
from tests.conftest import REPO, load_script


def test_the_missing_folders_are_made(tmp_path):
    path = tmp_path / "a" / "b" / "report.json"
    assert write_text_atomic(path, "{}\n", make_folders=True) == path
    assert path.read_text(encoding="utf-8") == "{}\n"


def test_a_failed_write_leaves_no_folder_it_made(tmp_path, monkeypatch):
    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_text_atomic(tmp_path / "a" / "b" / "report.json", "{}\n", make_folders=True)
    assert list(tmp_path.iterdir()) == []


def test_without_make_folders_a_missing_folder_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_text_atomic(tmp_path / "a" / "report.json", "{}\n")
    assert list(tmp_path.iterdir()) == []


def test_bench_inference_saves_its_rows_into_a_new_folder(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    path = tmp_path / "new" / "rows.json"
    load_script("scripts/bench_inference.py").save([{"batch_size": 1}], path)
    assert path.read_text(encoding="utf-8") == '[\n {\n  "batch_size": 1\n }\n]'
