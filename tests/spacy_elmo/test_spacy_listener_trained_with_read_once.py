"""An elmo component loading a biLM reads the incoming biLM's digest (a pass over every weight) only where a
listener's record of what it was trained with is checked against it (was: read first, then thrown away where
``nlp.initialize()`` trains the listening component afresh and forgets the record)."""

import spacy
from thinc.api import Adam

import hf_elmo.embed
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, training_examples


def test_initializing_a_trained_pipeline_again_reads_no_digest_of_the_biLM_it_loads(tiny_elmo_dir, monkeypatch):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    nlp.update(examples, sgd=Adam(0.01))
    calls = []
    fingerprint = hf_elmo.embed.model_fingerprint
    monkeypatch.setattr(hf_elmo.embed, "model_fingerprint", lambda elmo: calls.append(1) or fingerprint(elmo))
    nlp.initialize(lambda: examples)
    assert calls == []
