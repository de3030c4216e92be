"""Initialising a listening component alone (``nlp.get_pipe("ner").initialize(get_examples, nlp=nlp)``) is a fresh
start, as ``nlp.initialize()`` is: what its listener records it was trained with is then the biLM it listens to
(none known where no elmo component with weights links it), not the one its old weights were trained with (was:
the old record stayed, so the pipeline, consistent again, was refused as the elmo component loaded its new biLM, or
as spaCy linked it again)."""

import re

import pytest
import spacy

from tests.spacy_elmo.pipeline_helpers import elmo_only, training_examples
from tests.spacy_elmo.test_spacy_listener_trained_with import listener, trained


@pytest.fixture(scope="module")
def pipeline_of_bilm_0(tmp_path_factory, tiny_elmo_dir):
    """A saved pipeline whose ner was trained with the biLM ``tiny_elmo_dir``."""
    folder = tmp_path_factory.mktemp("initialize-alone") / "a"
    trained(tiny_elmo_dir).to_disk(folder)
    return folder


def load_weights(nlp, bilm_folder):
    loader = spacy.registry.misc.get("spacy-elmo.ElmoLoader.v1")(name_or_path=str(bilm_folder))
    nlp.get_pipe("elmo").initialize(lambda: [], nlp=nlp, loader=loader)


def test_a_component_initialized_alone_takes_the_biLM_its_elmo_component_loads_next(
    pipeline_of_bilm_0, other_tiny_elmo_dir
):
    nlp = spacy.load(pipeline_of_bilm_0)
    nlp.remove_pipe("elmo")
    nlp.add_pipe("elmo", before="ner")  # no weights yet
    nlp.get_pipe("ner").initialize(lambda: training_examples(nlp), nlp=nlp)
    assert listener(nlp).trained_with is None  # was: the biLM of the old weights
    load_weights(nlp, other_tiny_elmo_dir)  # was: refused, 'ner' trained with the other biLM
    nlp.get_pipe("ner").initialize(lambda: training_examples(nlp), nlp=nlp)
    assert listener(nlp).trained_with == nlp.get_pipe("elmo").bilm
    nlp("Alice lives in Paris .")


def test_a_component_initialized_alone_after_its_elmo_component_was_swapped_is_linked_again(
    pipeline_of_bilm_0, tiny_elmo_dir, other_tiny_elmo_dir, tmp_path
):
    nlp = spacy.load(pipeline_of_bilm_0)
    with nlp.select_pipes(disable=["ner"]):  # spaCy links no disabled component: none refuses the swap
        nlp.remove_pipe("elmo")
        nlp.add_pipe("elmo", source=elmo_only(other_tiny_elmo_dir), first=True)
    nlp.get_pipe("ner").initialize(lambda: training_examples(nlp), nlp=nlp)
    nlp.add_pipe("sentencizer", last=True)  # links the pipeline again; was: 'ner' refused
    nlp.to_disk(tmp_path / "b")
    b = spacy.load(tmp_path / "b")
    assert listener(b).trained_with.digest == b.get_pipe("elmo").bilm.digest  # saved as the biLM it listens to now
    with pytest.raises(ValueError, match=re.escape("component 'ner' was trained with the biLM")):
        elmo_only(tiny_elmo_dir).add_pipe("ner", source=b)
