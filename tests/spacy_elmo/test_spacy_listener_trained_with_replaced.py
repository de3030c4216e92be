"""``nlp.replace_listeners`` of a spaCy ``tok2vec`` component listening to the elmo component gives the listening
component a copy of its ELMo listener that keeps the biLM the tok2vec was trained with: sourced into a pipeline of
another biLM of the same widths, the component is refused as the original would be (was: the copy recorded none,
and read the other biLM's layers, silently)."""

import re

import pytest
import spacy

from tests.spacy_elmo.pipeline_helpers import loader_settings, tiny_elmo
from tests.spacy_elmo.test_ecosystem_replace_tok2vec_listeners import build


def listeners(nlp, name):
    return [node for node in nlp.get_pipe(name).model.walk() if node.name == "elmo-listener"]


def test_the_copy_of_a_tok2vec_s_listener_keeps_the_biLM_it_was_trained_with(tmp_path):
    for seed in (0, 1):
        tiny_elmo(seed).save_pretrained(tmp_path / f"bilm-{seed}")
    nlp, _, _ = build(tmp_path / "bilm-0")
    (original,) = listeners(nlp, "tok2vec")
    assert original.trained_with == nlp.get_pipe("elmo").bilm
    nlp.replace_listeners("tok2vec", "ner", ["model.tok2vec"])
    (copy,) = listeners(nlp, "ner")
    assert copy.trained_with == original.trained_with  # was: None
    other = spacy.blank("en")
    other.add_pipe("elmo")
    other.config["initialize"]["components"]["elmo"] = loader_settings(tmp_path / "bilm-1")
    other.initialize()
    with pytest.raises(ValueError, match=re.escape("component 'ner' was trained with the biLM")):
        other.add_pipe("ner", source=nlp)
    assert other.pipe_names == ["elmo"]
