"""``running_components``: the one home of reading which components the running spaCy call runs
(``nlp(text)``, ``nlp.pipe``); a spaCy that renames or builds those calls otherwise turns the check
that reads it off rather than failing it."""

import spacy
from spacy.language import Language

from spacy_elmo.call_stack import running_components

SEEN: list = []


@Language.component("spacy_elmo_test_running_components_probe")
def probe(doc):
    found = running_components(probe)
    SEEN.append(None if found is None else [name for name, _ in found])
    return doc


def test_the_components_running_and_none_under_a_spacy_that_calls_them_otherwise(monkeypatch):
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("spacy_elmo_test_running_components_probe", name="probe")
    nlp("a b")
    nlp("a b", disable=["sentencizer"])
    list(nlp.pipe(["a b"]))
    assert SEEN == [["sentencizer", "probe"], ["probe"], ["sentencizer", "probe"]]
    called = Language.__call__
    monkeypatch.setattr(Language, "__call__", lambda nlp, text, **kwargs: called(nlp, text, **kwargs))
    nlp("a b")  # a spaCy whose __call__ is another function, of other locals: off
    assert SEEN[-1] is None
    assert probe(nlp.make_doc("a")) is not None and SEEN[-1] is None  # called alone
