"""A listener that no elmo component links (its pipeline loaded with ``exclude=["elmo"]``, or an elmo component of
another biLM added while the listening component was disabled: spaCy links no disabled component's listeners) and
finds the layers of another biLM of its widths than the one its component was trained with refuses them in one line
naming both (was: read them silently, the component predicting from another biLM's features); layers of the biLM
it was trained with are read as before."""

import re

import pytest
import spacy
from spacy.tokens import DocBin

from tests.spacy_elmo.pipeline_helpers import elmo_only, trained_ner

TEXTS = ["Alice lives in Paris .", "Bob hates London ."]
REFUSED = re.escape("computed, not the biLM ") + ".* its component was trained with, and no elmo component"


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory, tiny_elmo_dir, other_tiny_elmo_dir):
    """Two saved pipelines whose ner were trained with biLMs of the same widths, other weights (seeds 0 and 1)."""
    root = tmp_path_factory.mktemp("unlinked")
    trained_ner(tiny_elmo_dir).to_disk(root / "a")
    trained_ner(other_tiny_elmo_dir).to_disk(root / "b")
    return root / "a", root / "b"


def docs_of(folder, nlp):
    data = DocBin(store_user_data=True, docs=spacy.load(folder).pipe(TEXTS)).to_bytes()
    return list(DocBin().from_bytes(data).get_docs(nlp.vocab))


def test_an_elmo_component_of_another_biLM_added_while_the_listening_one_was_disabled_is_refused(
    pipelines, other_tiny_elmo_dir
):
    a, _ = pipelines
    nlp = spacy.load(a)
    with nlp.select_pipes(disable=["ner"]):
        nlp.remove_pipe("elmo")
        nlp.add_pipe("elmo", source=elmo_only(other_tiny_elmo_dir), first=True)
    with pytest.raises(ValueError, match=REFUSED) as refused:  # was: the ner read the other biLM's layers
        nlp(TEXTS[0])
    assert "\n" not in str(refused.value)


def test_a_pipeline_loaded_without_its_elmo_component_refuses_another_biLM_s_docs(pipelines):
    a, b = pipelines
    nlp = spacy.load(b, exclude=["elmo"])
    with pytest.raises(ValueError, match=REFUSED):  # was: read, silently
        list(nlp.pipe(docs_of(a, nlp)))
    assert len(list(nlp.pipe(docs_of(b, nlp)))) == 2  # its own biLM's: read as before
