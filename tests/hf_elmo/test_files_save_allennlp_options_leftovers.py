"""``save_allennlp`` holds its options file's lock too (``sole_writer``), so the temporary options file that a killed
save left (``.options.json.XXXXXXXX.tmp``) is removed by the next save of it, and that of the weights' pairing file
by the next save of the weights (was: both left for good, as only the weights' were removed), and a save of the
same options file beside other weights meanwhile fails at once in one line, writing nothing."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import pytest

from hf_elmo.convert import save_allennlp
from hf_elmo.fileio import OutputBusyError, is_temporary_file, sole_writer
from hf_elmo.original_files import load_allennlp
from tests.hf_elmo.random_inputs import clipped_random_model, other_model

FORK = multiprocessing.get_context("fork")


def _saved_killed_before_its_renames(options: Path, weights: Path) -> None:
    os.replace = lambda source, target: os.kill(os.getpid(), signal.SIGKILL)  # both files written, none renamed
    save_allennlp(other_model(), options, weights)


def test_the_next_save_removes_the_temporary_files_of_a_killed_one(tmp_path, one_thread):
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    process = FORK.Process(target=_saved_killed_before_its_renames, args=(options, weights))
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL
    left = sorted(path.name for path in tmp_path.iterdir() if is_temporary_file(path))
    assert [name.split(".")[1] for name in left] == ["", "options", "weights"]  # ..weights.hdf5.pairing.X.tmp first
    save_allennlp(clipped_random_model(), options, weights)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["options.json", "weights.hdf5"]
    assert load_allennlp(options, weights).config.cell_clip == clipped_random_model().config.cell_clip


def test_a_save_of_the_same_options_file_beside_other_weights_meanwhile_fails_at_once(tmp_path):
    options = tmp_path / "options.json"
    with sole_writer(options), pytest.raises(OutputBusyError) as busy:  # another save of that options file
        save_allennlp(clipped_random_model(), options, tmp_path / "other.hdf5")
    assert str(busy.value) == (
        f"{options} is being written by another run (it holds {options}.lock); wait for it to end or write elsewhere"
    )
    assert list(tmp_path.iterdir()) == []
