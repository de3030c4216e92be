"""``doc._.elmo = ...`` takes ``ElmoLayers`` or ``None``, and refuses anything else in one line."""

import numpy as np
import pytest

from spacy_elmo import ElmoLayers


@pytest.mark.parametrize(
    "value, named",
    [
        (np.zeros((3, 2, 16), dtype="float32"), "a value of type ndarray"),  # its repr spans lines
        ("layers", "the str 'layers'"),
        ([1, 2], "the list [1, 2]"),
    ],
)
def test_a_value_that_is_no_elmo_layers_is_refused_naming_it_and_elmo_layers_of(make_nlp, value, named):
    """Was: taken, then an AttributeError ('numpy.ndarray' object has no attribute 'fits') at the next read."""
    nlp = make_nlp()
    doc = nlp("Alice lives here .")
    new = doc[0:2].as_doc()
    with pytest.raises(TypeError) as refused:
        new._.elmo = value
    assert str(refused.value) == (
        f"doc._.elmo takes ElmoLayers or None, got {named}: give (L+1, n_tokens, 2P) layers as "
        "ElmoLayers.of(doc, layers, component) (from spacy_elmo import ElmoLayers)"
    )
    assert new._.elmo is None
    new._.elmo = ElmoLayers.of(new, doc._.elmo.layers[:, 0:2], doc._.elmo.component)
    assert new._.elmo.layers.shape[1] == 2
    new._.elmo = None
    assert new._.elmo is None
