"""A sentencizer (senter, parser) before the ``elmo`` component splits docs into sentences in
prediction, but ``nlp.update`` runs it only where ``annotates`` (``[training]
annotating_components``) lists it: without, the biLM reads the training docs whole, and the
component says so once."""

import warnings

import numpy as np
import pytest
import spacy
from spacy.training import Example

from spacy_elmo.listener import ElmoListener
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config

TEXT = "Alice lives in Paris . Bob hates London ."
READ_WHOLE = (
    "the elmo component 'elmo' reads these training docs whole: nlp.update does not run 'sentencizer', which comes "
    "before it and splits docs into sentences in prediction, where the biLM reads each sentence alone, so a doc of "
    "several sentences gets other ELMo layers in training than in prediction: add 'sentencizer' to [training] "
    "annotating_components (in a loop of your own: nlp.update(..., annotates=['sentencizer'])) (said once for this "
    "component)"
)


def build(tiny_elmo_dir, sentencizer=True):
    nlp = spacy.blank("en")
    if sentencizer:
        nlp.add_pipe("sentencizer")
    nlp.add_pipe("elmo", config={"cache_mb": 0})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    optimizer = nlp.initialize(lambda: examples(nlp))
    return nlp, optimizer


def examples(nlp):
    gold = nlp.make_doc(TEXT)
    gold.ents = [gold.char_span(0, 5, label="PER"), gold.char_span(23, 26, label="PER")]
    return [Example(nlp.make_doc(TEXT), gold)]


def training_layers(nlp, optimizer, monkeypatch, **update):
    """The layers the elmo component hands its listeners in one ``nlp.update``."""
    received = []
    receive = ElmoListener.receive

    def recording(listener, batch_id, outputs, *args, **kwargs):
        received.append(outputs)
        receive(listener, batch_id, outputs, *args, **kwargs)

    monkeypatch.setattr(ElmoListener, "receive", recording)
    nlp.update(examples(nlp), sgd=optimizer, **update)
    monkeypatch.undo()
    return received[0][0]


def test_a_sentencizer_before_elmo_that_nlp_update_does_not_run_is_warned_about_once(tiny_elmo_dir, monkeypatch):
    nlp, optimizer = build(tiny_elmo_dir)
    with pytest.warns(UserWarning) as caught:
        layers = training_layers(nlp, optimizer, monkeypatch)
    assert [str(w.message) for w in caught if "reads these training docs whole" in str(w.message)] == [READ_WHOLE]
    assert not np.allclose(layers, nlp(TEXT)._.elmo.layers)  # what the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp.update(examples(nlp), sgd=optimizer)  # once per component


def test_a_frozen_annotating_elmo_component_warns_of_it_too(tiny_elmo_dir):
    """``spacy train``'s frozen annotating components: ``nlp.update`` excludes elmo and has it annotate the batch."""
    nlp, optimizer = build(tiny_elmo_dir)
    with pytest.warns(UserWarning) as caught:
        nlp.update(examples(nlp), sgd=optimizer, exclude=["elmo"], annotates=["elmo"])
    assert [str(w.message) for w in caught if "reads these training docs whole" in str(w.message)] == [READ_WHOLE]


def test_a_sentencizer_that_annotates_in_training_or_none_gives_no_warning(tiny_elmo_dir, monkeypatch):
    nlp, optimizer = build(tiny_elmo_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layers = training_layers(nlp, optimizer, monkeypatch, annotates=["sentencizer"])
        np.testing.assert_allclose(layers, nlp(TEXT)._.elmo.layers, atol=1e-6)
        nlp.update(examples(nlp), sgd=optimizer, exclude=["elmo"], annotates=["sentencizer", "elmo"])
        nlp(TEXT)  # prediction outside nlp.update
        without, optimizer = build(tiny_elmo_dir, sentencizer=False)
        without.update(examples(without), sgd=optimizer)
