"""``replace_listeners_locals``: the one home of reading ``nlp.replace_listeners``'s locals, which the
checks of its paths read (``check_replaceable``, the listener's ``replace_listener_cfg``). Read where
spaCy's method calls the reader's caller directly; a spaCy that renames the method turns them off."""

from spacy.language import Language

from spacy_elmo.call_stack import replace_listeners_locals


def hook(direct: bool = True) -> dict | None:
    return replace_listeners_locals(direct)


def replace_listeners(self: object, pipe_name: str, direct: bool = True) -> object:  # as spaCy's
    return hook() if direct else (lambda: (hook(), hook(direct=False)))()


def test_the_locals_of_the_direct_caller_and_none_of_another_or_of_a_spacy_without_it(monkeypatch):
    monkeypatch.setattr(Language, "replace_listeners", replace_listeners)
    assert replace_listeners(None, "ner") == {"self": None, "pipe_name": "ner", "direct": True}
    called, running = replace_listeners(None, "ner", direct=False)
    assert called is None and running == {"self": None, "pipe_name": "ner", "direct": False}  # running, not calling
    assert hook() is None
    monkeypatch.delattr(Language, "replace_listeners")  # a spaCy that renames it: the checks are off
    assert replace_listeners(None, "ner") is None
