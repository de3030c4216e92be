"""``doc._.elmo = VALUE`` names a value that is no ``ElmoLayers`` as every refusal does (``described``)."""

from __future__ import annotations

import pytest


def test_a_value_that_is_no_elmo_layers_is_named_by_its_value(make_nlp):
    """Was: "doc._.elmo takes ElmoLayers or None, got int: ..."."""
    doc = make_nlp()("Alice lives here .")
    with pytest.raises(TypeError, match=r"^doc\._\.elmo takes ElmoLayers or None, got the int 3: give \(L\+1"):
        doc._.elmo = 3
