"""``running_pipeline``: the one home of reading the pipeline of a running ``Language`` method (here
``_link_components``) up the call stack; a spaCy that renames it turns what reads it off rather than failing."""

import spacy
from spacy.language import Language

from spacy_elmo.call_stack import running_pipeline


def _link_components(self: Language) -> object:  # as spaCy's, linking a component that reads it
    return (lambda: running_pipeline("_link_components"))()


def test_the_pipeline_linking_and_none_elsewhere_or_in_a_spacy_without_it(monkeypatch):
    nlp = spacy.blank("en")
    monkeypatch.setattr(Language, "_link_components", _link_components)
    assert _link_components(nlp) is nlp
    assert running_pipeline("_link_components") is None
    monkeypatch.delattr(Language, "_link_components")  # a spaCy that renames it: off
    assert _link_components(nlp) is None
