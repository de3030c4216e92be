"""``ElmoLayers.of`` refusing layers of other rows than a doc's tokens points a ``span.as_doc()`` at
``ElmoLayers.of_span``, whose layers keep the biLM that computed them (was: told to slice ``doc._.elmo.layers`` by
hand, layers that record no biLM, which no listener can check)."""

import re

import numpy as np
import pytest

from spacy_elmo import ElmoLayers


def test_layers_of_other_rows_point_a_span_as_doc_at_of_span(make_nlp):
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris .")
    span = doc[1:3]
    new = span.as_doc()
    with pytest.raises(ValueError) as refused:
        ElmoLayers.of(new, doc._.elmo.layers, "elmo")
    advice = re.search(r"for span\.as_doc\(\): (new\._\.elmo = [^,]*)", str(refused.value))
    assert advice is not None, str(refused.value)
    exec(advice[1], {"ElmoLayers": ElmoLayers, "new": new, "span": span})  # the advice, as it is written
    assert np.array_equal(new._.elmo.layers, doc._.elmo.layers[:, 1:3]) and new._.elmo.bilm == doc._.elmo.bilm
