"""Paths given to pretraining from Python as ``"~/..."`` name the home folder, as the shell would have
expanded them and as ``fileio.check_output_folder`` reads an output folder: nothing lands in a folder
named ``~`` in the current folder, and what is returned is the folder written."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.training.output import save_lm_folder
from hf_elmo.training.vocab import build_vocabulary
from tests.hf_elmo.training.test_pretraining import settings_for, tiny_lm, write_corpus


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder (``~``) under ``tmp_path``, the current folder another one beside it."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return home


def test_save_lm_folder_returns_the_folder_it_wrote_in_the_home_folder(home, tmp_path):
    """Was: Path('~/model'), a path that names nothing (the folder is written at HOME/model)."""
    vocabulary = build_vocabulary(["the cat sees a dog ."], min_count=1)
    settings = settings_for(tmp_path, write_corpus(tmp_path / "c.txt"), output_dir="~/model")
    position = {"step": 1, "tokens_seen": 10, "epoch": 0}
    written = save_lm_folder(tiny_lm(len(vocabulary)), vocabulary, "~/model", settings, position, {}, None)
    assert written == home / "model" and (written / "config.json").is_file()
    assert list((tmp_path / "work").iterdir()) == []
