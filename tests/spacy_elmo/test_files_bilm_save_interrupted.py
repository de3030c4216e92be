"""The elmo component's ``to_disk`` writes the biLM aside and swaps it in whole: a save stopped part-way (Ctrl-C,
a disk that fills despite the check, any error) leaves the earlier save's biLM as it was and nothing
half-written; a killed save's staging folder goes with the next save."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest
import spacy

from hf_elmo import ElmoModel
from tests.spacy_elmo.test_elmo_component import TEXTS


def files_of(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))])
def test_a_save_stopped_part_way_keeps_the_earlier_bilm(stop, make_nlp, tmp_path, monkeypatch):
    """Was: the earlier biLM removed first, then config.json and part of model.safetensors written: the pipeline
    lost its weights ('holds no model.safetensors', or a safetensors error when loaded)."""
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    before, expected = files_of(pipeline / "elmo"), spacy.load(pipeline)(TEXTS[0])._.elmo.layers
    real_save = ElmoModel.save_pretrained

    def stopped(self, folder, **options):
        real_save(self, folder, **options)
        (folder / "model.safetensors").write_bytes(b"half")
        raise stop

    monkeypatch.setattr(ElmoModel, "save_pretrained", stopped)
    with pytest.raises(type(stop)):
        nlp.get_pipe("elmo").to_disk(pipeline / "elmo")
    assert files_of(pipeline / "elmo") == before
    assert [p.name for p in (pipeline / "elmo").iterdir()] == ["bilm"]  # no staging folder left
    monkeypatch.undo()
    np.testing.assert_array_equal(spacy.load(pipeline)(TEXTS[0])._.elmo.layers, expected)


def test_a_killed_saves_staging_folder_goes_with_the_next_save(make_nlp, tmp_path):
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    left = pipeline / "elmo" / ".bilm.building-abcd1234"  # as build_aside names it; no process holds it
    left.mkdir()
    (left / "model.safetensors").write_bytes(b"half")
    nlp.to_disk(pipeline)
    assert [p.name for p in (pipeline / "elmo").iterdir()] == ["bilm"]
