"""A pipeline saved again over an earlier save whose biLM folder holds the lock file of its ``save_pretrained``
(``.elmo-saving.lock``: filelock leaves it where there is no flock, a killed save anywhere) saves whole (was: refused,
"holds files that elmo did not write (.elmo-saving.lock)")."""

from __future__ import annotations

import numpy as np
import spacy

from hf_elmo.configuration_elmo import SAVE_LOCK
from tests.spacy_elmo.test_elmo_component import TEXTS


def test_a_pipeline_saves_over_a_bilm_folder_that_holds_the_lock_file(make_nlp, tmp_path):
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    (pipeline / "elmo" / "bilm" / SAVE_LOCK).touch()
    nlp.to_disk(pipeline)
    assert not (pipeline / "elmo" / "bilm" / SAVE_LOCK).exists()
    np.testing.assert_array_equal(spacy.load(pipeline)(TEXTS[0])._.elmo.layers, nlp(TEXTS[0])._.elmo.layers)
