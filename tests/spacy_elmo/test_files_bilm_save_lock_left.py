"""A pipeline saved again over an earlier save whose biLM folder holds the lock file of its ``save_pretrained``
(``.elmo-saving.lock``: filelock leaves it where there is no flock, a killed save anywhere), or the hidden folder of a
killed one, saves whole (was: refused, "holds files that elmo did not write (.elmo-saving.lock)")."""

from __future__ import annotations

import os

import numpy as np
import spacy

from hf_elmo.configuration_elmo import SAVE_LOCK, is_save_aside
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_files_save_killed_leftovers import killed_save
from tests.spacy_elmo.test_elmo_component import TEXTS


def test_a_pipeline_saves_over_a_bilm_folder_that_holds_the_lock_file(make_nlp, tmp_path):
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    (pipeline / "elmo" / "bilm" / SAVE_LOCK).touch()
    nlp.to_disk(pipeline)
    assert not (pipeline / "elmo" / "bilm" / SAVE_LOCK).exists()
    np.testing.assert_array_equal(spacy.load(pipeline)(TEXTS[0])._.elmo.layers, nlp(TEXTS[0])._.elmo.layers)


def test_a_pipeline_saves_over_a_bilm_folder_in_which_a_save_was_killed(make_nlp, tmp_path, one_thread):
    """Its hidden ``.elmo-saving-XXXXXXXX`` folder and lock file left there (kill -9 as it wrote the weights)."""
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    killed_save(clipped_random_model(), pipeline / "elmo" / "bilm")
    assert any(is_save_aside(name) for name in os.listdir(pipeline / "elmo" / "bilm"))
    nlp.to_disk(pipeline)
    assert not any(is_save_aside(name) or name == SAVE_LOCK for name in os.listdir(pipeline / "elmo" / "bilm"))
    np.testing.assert_array_equal(spacy.load(pipeline)(TEXTS[0])._.elmo.layers, nlp(TEXTS[0])._.elmo.layers)
