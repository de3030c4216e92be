"""Paths given to pretraining from Python as ``"~/..."`` name the home folder, as the shell would have
expanded them and as ``output_folders.check_output_folder`` reads an output folder: nothing lands in a folder
named ``~`` in the current folder, and what is returned is the folder written."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.training.output import save_lm_folder
from hf_elmo.training.trainer import pretrain
from hf_elmo.training.vocab import build_vocabulary
from tests.hf_elmo.training.test_pretraining import settings_for, tiny_lm, write_corpus


def test_save_lm_folder_returns_the_folder_it_wrote_in_the_home_folder(home, tmp_path):
    """Was: Path('~/model'), a path that names nothing (the folder is written at HOME/model)."""
    vocabulary = build_vocabulary(["the cat sees a dog ."], min_count=1)
    settings = settings_for(tmp_path, write_corpus(tmp_path / "c.txt"), output_dir="~/model")
    position = {"step": 1, "tokens_seen": 10, "epoch": 0}
    written = save_lm_folder(tiny_lm(len(vocabulary)), vocabulary, "~/model", settings, position, {}, None)
    assert written == home / "model" and (written / "config.json").is_file()
    assert list((tmp_path / "work").iterdir()) == []


@pytest.mark.parametrize("checkpoint_dir", [None, "~/ck"])
def test_pretrain_reads_and_writes_the_home_folders_paths(checkpoint_dir, home, tmp_path):
    """Was: the training file '~/c.txt: no such file'; with it given in full, the model went to HOME/out
    and its checkpoint to './~/out.checkpoint', a folder named '~' in the current folder."""
    write_corpus(home / "c.txt", n=30)
    write_corpus(home / "v.txt", n=10, seed=1)
    settings = settings_for(
        tmp_path,
        Path("~/c.txt"),
        output_dir="~/out",
        valid_file="~/v.txt",
        checkpoint_dir=checkpoint_dir,
        max_tokens=100,
    )
    assert (settings.train_file, settings.valid_file) == (str(home / "c.txt"), str(home / "v.txt"))
    assert pretrain(settings, show_progress=False) == home / "out"
    checkpoint = home / ("ck" if checkpoint_dir else "out.checkpoint")
    assert (checkpoint / "settings.json").is_file() and (home / "out" / "config.json").is_file()
    assert list((tmp_path / "work").iterdir()) == []
