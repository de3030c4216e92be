"""A listener given ``span.as_doc()`` of a doc read back with its layers (``DocBin``, ``Doc.from_bytes``,
e.g. what ``spacy apply`` wrote) names ``as_doc`` as the cause, as for a doc annotated in this process."""

import re
import warnings
from unittest import mock

import pytest
import spacy
from spacy.tokens import Doc, DocBin

from tests.spacy_elmo.pipeline_helpers import loader_settings, textcat_config, training_examples
from tests.spacy_elmo.test_listeners import ZERO_FEATURES

AS_DOC = "this doc was made by span.as_doc() from a doc the elmo component annotated"


def pipeline(tiny_elmo_dir) -> spacy.Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    return nlp


@pytest.mark.parametrize("read_back", ["DocBin", "Doc.from_bytes"])
def test_a_span_s_doc_of_a_doc_read_back_gets_the_as_doc_warning(tiny_elmo_dir, read_back):
    """Was: the warning that the elmo component did not run, which names disable= and exclude=, not as_doc."""
    nlp = pipeline(tiny_elmo_dir)
    doc = nlp("Alice lives in Paris . Bob too .")
    if read_back == "DocBin":
        saved = DocBin(docs=[doc], store_user_data=True).to_bytes()
        loaded = next(DocBin().from_bytes(saved).get_docs(nlp.vocab))
    else:
        loaded = Doc(nlp.vocab).from_bytes(doc.to_bytes(exclude=["user_hooks"]))
    assert loaded._.elmo is not None
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        nlp.get_pipe("textcat")(loaded[0:5].as_doc())
    (said,) = [str(w.message) for w in record if "ELMo" in str(w.message)]
    assert AS_DOC in said


def test_a_span_s_doc_of_a_doc_without_layers_still_gets_the_general_warning(tiny_elmo_dir):
    nlp = pipeline(tiny_elmo_dir)
    plain = nlp.make_doc("Alice lives in Paris . Bob too .")
    with pytest.warns(UserWarning, match=re.escape(ZERO_FEATURES)):
        nlp.get_pipe("textcat")(plain[0:5].as_doc())


def test_a_doc_that_shares_no_hooks_is_told_apart_without_scanning_the_objects(tiny_elmo_dir):
    """The scan for a doc read back that holds the same hooks (``gc.get_referrers``) costs tens of ms: a doc the
    elmo component did not run on, which holds its hooks alone, is not scanned for."""
    from spacy_elmo.doc_layers import annotated_sharing_hooks

    nlp = pipeline(tiny_elmo_dir)
    with mock.patch("gc.get_referrers", side_effect=AssertionError("scanned")):
        assert annotated_sharing_hooks(nlp.make_doc("Alice lives in Paris .")) is None
