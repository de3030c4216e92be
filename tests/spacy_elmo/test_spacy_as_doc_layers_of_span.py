"""README's recipe for ``span.as_doc()`` (``new._.elmo = ElmoLayers.of_span(span)``) gives the new doc the span's
rows with the biLM that computed them, so a listener of another biLM of the same widths refuses them as it refuses
the doc's own (was: ``ElmoLayers.of(new, rows, component)``, layers that record no biLM, read unchecked)."""

import re
from pathlib import Path

import numpy as np
import pytest

from spacy_elmo import ElmoLayers
from tests.spacy_elmo.pipeline_helpers import trained_ner

README = Path(__file__).parents[2] / "README.md"


def readme_recipe() -> str:
    """The code README gives for a ``span.as_doc()``'s layers (an inline code span; its line breaks are spaces)."""
    found = re.findall(r"`(new\._\.elmo = [^`]*)`", README.read_text(encoding="utf-8"))
    assert len(found) == 1, found
    return " ".join(found[0].split())


@pytest.fixture(scope="module")
def two_pipelines(tiny_elmo_dir, other_tiny_elmo_dir):
    """Pipelines whose biLMs have the same widths but other weights (seeds 0 and 1)."""
    return trained_ner(tiny_elmo_dir), trained_ner(other_tiny_elmo_dir)


def run_recipe(doc, span):
    new = span.as_doc()
    exec(readme_recipe(), {"ElmoLayers": ElmoLayers, "new": new, "doc": doc, "span": span})  # as README writes it
    return new


def test_readme_s_recipe_keeps_the_biLM_and_another_biLM_s_listener_refuses_the_rows(two_pipelines):
    a, b = two_pipelines
    doc = a("Alice lives in Paris . Bob too .")
    span = doc[2:5]
    new = run_recipe(doc, span)
    assert new._.elmo.bilm == doc._.elmo.bilm is not None  # was: None
    assert new._.elmo.component == "elmo"
    np.testing.assert_array_equal(new._.elmo.layers, doc._.elmo.layers[:, 2:5])
    assert new._.elmo.fits(new)
    a.get_pipe("ner")(new)  # its own biLM's rows: read
    with pytest.raises(ValueError, match=re.escape(f"holds layers that the biLM {doc._.elmo.bilm} computed, not")):
        b.get_pipe("ner")(run_recipe(doc, span))  # was: read, silently, as the features of b's biLM


def test_the_rows_of_a_retokenized_doc_are_those_of_its_tokens_now(two_pipelines):
    a, _ = two_pipelines
    doc = a("Alice lives in New York now .")
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[3:5])
    span = doc[2:5]
    new = run_recipe(doc, span)
    assert new._.elmo.fits(new)
    np.testing.assert_allclose(new._.elmo.layers, doc._.elmo.layers[:, 2:5])


def test_a_span_of_a_doc_without_layers_is_refused_in_one_line(two_pipelines):
    a, _ = two_pipelines
    doc = a.make_doc("Alice lives in Paris .")
    with pytest.raises(ValueError) as refused:
        ElmoLayers.of_span(doc[1:3])
    assert str(refused.value) == (
        "ElmoLayers.of_span: the doc of the span 'lives in' has no doc._.elmo: run the pipeline (its elmo component) "
        "on the doc first, or run it on the span's own doc, nlp(span.as_doc())"
    )
