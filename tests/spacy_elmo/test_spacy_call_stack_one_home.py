"""All reading of stack frames in ``spacy_elmo`` lives in ``call_stack.py``: the other modules ask it
(``running_pipeline``, ``running_update``, ``training_init``...) and read no frame themselves."""

from pathlib import Path

import pytest
import spacy
from spacy.language import Language

import spacy_elmo
from spacy_elmo.call_stack import RunningUpdate, running_pipeline, running_update

FRAME_READING = ("running_locals(", "running_calls(", "sys._getframe", "inspect.stack", "f_locals", "f_back")


def test_no_module_but_call_stack_reads_a_frame():
    folder = Path(spacy_elmo.__file__).parent
    readers = [
        f"{path.name}: {what}"
        for path in sorted(folder.glob("*.py"))
        if path.name != "call_stack.py"
        for what in FRAME_READING
        if what in path.read_text()
    ]
    assert readers == []


def update(self: Language, exclude: tuple = (), annotates: tuple = ()) -> object:  # as spaCy's names them
    return (lambda: (running_update(), running_pipeline("update")))()


def test_running_update_reads_the_pipeline_and_its_settings_and_none_elsewhere(monkeypatch):
    nlp = spacy.blank("en")
    monkeypatch.setattr(Language, "update", update)
    found, pipeline = update(nlp, exclude=("ner",), annotates=["senter"])
    assert found == RunningUpdate(nlp, frozenset({"ner"}), frozenset({"senter"})) and pipeline is nlp
    assert update(nlp) == (RunningUpdate(nlp, frozenset(), frozenset()), nlp)
    assert running_update() is None and running_pipeline("update") is None
    monkeypatch.delattr(Language, "update")  # a spaCy that renames it: off
    assert update(nlp) == (None, None)


@pytest.mark.parametrize("method", ["resume_training", "initialize"])
def test_running_pipeline_is_none_for_a_self_that_is_no_pipeline(monkeypatch, method):
    def probe(self: object) -> object:
        return running_pipeline(method)

    monkeypatch.setattr(Language, method, probe)
    assert probe(object()) is None
    nlp = spacy.blank("en")
    assert probe(nlp) is nlp
