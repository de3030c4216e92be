"""``save_allennlp`` holds its weights file's lock while it writes the pair: a second save to the same files meanwhile
fails at once in one line and writes nothing (was: both wrote, and their renames could leave the options file of
one model beside the weights of the other)."""

from __future__ import annotations

import pytest

from hf_elmo.convert import save_allennlp
from hf_elmo.fileio import OutputBusyError, sole_writer
from tests.hf_elmo.random_inputs import clipped_random_model


def test_a_save_while_another_writes_the_same_weights_fails_at_once(tmp_path):
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    model = clipped_random_model()
    with sole_writer(weights), pytest.raises(OutputBusyError) as busy:  # another save of the pair, under way
        save_allennlp(model, options, weights)
    assert str(busy.value) == (
        f"{weights} is being written by another run (it holds {weights}.lock); wait for it to end or write elsewhere"
    )
    assert list(tmp_path.iterdir()) == []
    save_allennlp(model, options, weights)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["options.json", "weights.hdf5"]
