"""``save_allennlp`` over an earlier pair, killed (kill -9) between its two renames (the new weights in, the earlier
options file still there, of another cell_clip): loading the pair refuses the weights in one line naming them (was:
loaded the new weights with the earlier options, silently), until the next save of the pair, which removes its file
beside them."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import pytest

from hf_elmo import ElmoModel
from hf_elmo.convert import save_allennlp
from hf_elmo.original_files import load_allennlp
from tests.hf_elmo.random_inputs import clipped_random_model, other_model

FORK = multiprocessing.get_context("fork")


def _saved_killed_before_the_options(options: Path, weights: Path) -> None:
    replace = os.replace

    def killed(source: str, target: str) -> None:
        if Path(target) == options:
            os.kill(os.getpid(), signal.SIGKILL)
        replace(source, target)

    os.replace = killed
    save_allennlp(other_model(), options, weights)


def test_a_pair_whose_save_was_killed_between_its_renames_is_refused_until_saved_again(tmp_path, one_thread):
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    save_allennlp(clipped_random_model(), options, weights)
    process = FORK.Process(target=_saved_killed_before_the_options, args=(options, weights))
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL
    for load in (lambda: load_allennlp(options, weights), lambda: ElmoModel.from_pretrained(tmp_path)):
        with pytest.raises(OSError) as caught:
            load()
        assert str(caught.value).startswith(f"{weights} may not pair with its options file: a save_allennlp of both")
        assert "\n" not in str(caught.value)
    save_allennlp(other_model(), options, weights)
    assert load_allennlp(options, weights).config.cell_clip == 2.0
    assert not [path.name for path in tmp_path.iterdir() if path.name.endswith(".pairing")]


@pytest.mark.parametrize("interrupted", [KeyboardInterrupt, OSError])
def test_a_save_stopped_before_the_weights_are_renamed_in_leaves_the_earlier_pair_loadable(
    tmp_path, monkeypatch, interrupted
):
    """Ctrl-C or an error as the weights are renamed in (their fsync, a large file's longest step): the earlier pair
    is whole, and loads (was: refused as mixed, the pairing file left); a new folder is removed again."""
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    save_allennlp(clipped_random_model(), options, weights)
    new_options, new_weights = tmp_path / "new" / "options.json", tmp_path / "new" / "weights.hdf5"
    replace = os.replace

    def stopped(source: str, target: str) -> None:
        if Path(target).name == "weights.hdf5":
            raise interrupted("stopped")
        replace(source, target)

    monkeypatch.setattr(os, "replace", stopped)
    for pair in ((options, weights), (new_options, new_weights)):
        with pytest.raises(interrupted):
            save_allennlp(other_model(), *pair)
    monkeypatch.undo()
    assert load_allennlp(options, weights).config.cell_clip == clipped_random_model().config.cell_clip
    assert not [path.name for path in tmp_path.iterdir() if path.name.endswith(".pairing")]
    assert not (tmp_path / "new").exists()
