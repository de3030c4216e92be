"""A refused listener leaves the pipeline as it was: ``nlp.add_pipe(..., source=...)`` of a component that the elmo
component refuses as spaCy links the pipeline (trained with another biLM, or on layers of other widths) does not
add it (was: the call failed with the component added, linked to no elmo component); loading another biLM than
a listener was trained with (``from_disk``, ``from_bytes``, ``initialize``) is refused before the weights change
(was: refused after they were loaded, the pipeline then running the refused biLM)."""

import numpy as np
import pytest
from thinc.api import Adam

from hf_elmo import ElmoModel
from tests.spacy_elmo.pipeline_helpers import (
    elmo_only,
    ner_config,
    tiny_elmo,
    trained_ner,
    training_examples,
)
from tests.spacy_elmo.test_listener_errors import elmo_bytes, other_bilm

TEXT = "Alice lives in Paris ."
REFUSED = r"^component 'ner' was trained with the biLM .*, but the elmo component 'elmo' runs the biLM "


def trained(bilm_folder):
    nlp = trained_ner(bilm_folder, cache_mb=0)  # no cache: the layers below come from the biLM itself
    nlp.update(training_examples(nlp), sgd=Adam(0.01))
    return nlp


@pytest.fixture(scope="module")
def bilms(tmp_path_factory):
    root = tmp_path_factory.mktemp("bilms")
    for seed in (0, 1):
        tiny_elmo(seed).save_pretrained(root / f"bilm-{seed}" / "elmo" / "bilm")
    return root / "bilm-0" / "elmo" / "bilm", root / "bilm-1" / "elmo" / "bilm"


def test_a_component_refused_as_it_is_sourced_is_not_added(bilms):
    bilm_0, bilm_1 = bilms
    other = elmo_only(bilm_1)
    with pytest.raises(ValueError, match=REFUSED):
        other.add_pipe("ner", source=trained(bilm_0))
    assert other.pipe_names == ["elmo"] and other.component_names == ["elmo"]  # was: ["elmo", "ner"]
    other.add_pipe("ner", config=ner_config())  # the name is free again
    assert other.pipe_names == ["elmo", "ner"]


def test_a_component_of_other_widths_refused_as_it_is_sourced_is_not_added(bilms, tmp_path):
    bilm_0, _ = bilms
    nlp = elmo_only(other_bilm(tmp_path / "wide", projection_dim=12))
    with pytest.raises(ValueError, match=r"^component 'ner' was trained on ELMo layers of width 2P = 16, "):
        nlp.add_pipe("ner", source=trained_ner(bilm_0))
    assert nlp.pipe_names == ["elmo"]


@pytest.mark.parametrize("load", ["from_disk", "from_bytes", "initialize"])
def test_another_biLM_than_a_listener_was_trained_with_is_refused_before_it_is_loaded(bilms, load):
    bilm_0, bilm_1 = bilms
    nlp = trained(bilm_0)
    elmo = nlp.get_pipe("elmo")
    before, bilm = nlp(TEXT), elmo.bilm
    loads = {
        "from_disk": lambda: elmo.from_disk(bilm_1.parent),
        "from_bytes": lambda: elmo.from_bytes(elmo_bytes(bilm_1)),
        "initialize": lambda: elmo.initialize(lambda: [], nlp=nlp, loader=lambda: ElmoModel.from_pretrained(bilm_1)),
    }
    with pytest.raises(ValueError, match=REFUSED):
        loads[load]()
    after = nlp(TEXT)
    assert elmo.bilm == bilm  # was: bilm-1's
    np.testing.assert_array_equal(after._.elmo.layers, before._.elmo.layers)
