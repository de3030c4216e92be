"""A listener on a doc joined by ``Doc.from_docs`` (which drops ``doc._.elmo``, spaCy's W101) warns that it
predicts from zero ELMo features, and its warning names from_docs as a cause and what to do."""

import re
import warnings

import pytest
from spacy.tokens import Doc

from tests.spacy_elmo.test_listeners import ZERO_FEATURES, initialized_textcat_pipeline


def test_a_listener_on_docs_joined_by_from_docs_warns_that_from_docs_drops_the_layers(tiny_elmo_dir):
    nlp = initialized_textcat_pipeline(tiny_elmo_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # spaCy's W101: from_docs skips doc._.elmo
        joined = Doc.from_docs([nlp("Alice lives in Paris ."), nlp("Bob hates London .")])
    assert joined._.elmo is None
    with pytest.warns(UserWarning, match=re.escape(ZERO_FEATURES)) as record:
        nlp.get_pipe("textcat")(joined)
    assert any("Doc.from_docs" in str(w.message) for w in record)
    # what the warning says to do gives the listener its layers
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp.get_pipe("textcat")(nlp.get_pipe("elmo")(joined))
