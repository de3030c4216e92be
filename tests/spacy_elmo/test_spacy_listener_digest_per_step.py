"""A listening component beside a fine-tuned elmo component computes no biLM digest per training step: the
layers such an elmo component annotates record no biLM (their weights change at every step), so the listener
checks nothing against them (was: it asked the elmo component for its digest, a pass over every weight, for
every doc at every step, after each step cleared it, and threw it away)."""

import spacy
from thinc.api import Adam

import hf_elmo.embed
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, training_examples


def test_a_fine_tuned_elmo_s_listener_computes_no_digest_per_step(tiny_elmo_dir, monkeypatch):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"@architectures": "spacy-elmo.ElmoBiLm.v3", "frozen": False}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    nlp.update(examples, sgd=optimizer)
    calls = []
    fingerprint = hf_elmo.embed.model_fingerprint
    monkeypatch.setattr(hf_elmo.embed, "model_fingerprint", lambda elmo: calls.append(1) or fingerprint(elmo))
    for _ in range(3):
        nlp.update(examples, sgd=optimizer, annotates=["elmo", "ner"])
    assert calls == []
