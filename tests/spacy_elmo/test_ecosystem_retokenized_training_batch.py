"""A retokenizing component (``merge_entities``) that ``nlp.update`` has annotate the batch between
the ``elmo`` component and a listening one changes the docs' tokens after their layers were
computed: refused, naming that component and where to move it (was: the error of a batch from
elsewhere, which named ``nlp.rehearse``)."""

import re

import pytest
import spacy
from spacy.training import Example

from tests.spacy_elmo.pipeline_helpers import loader_settings, textcat_config, training_examples

MERGED = (
    "ELMo listener: the tokens of the training docs changed after the elmo component 'elmo' computed their layers, "
    "one row per token, so these fit them no more: 'merge_entities' retokenized them as nlp.update had it annotate "
    "the batch ([training] annotating_components); move 'merge_entities' (with the components it reads from) before "
    "'elmo' in the pipeline, or after the components listening to 'elmo'"
)


def build(tiny_elmo_dir, merge_first):
    nlp = spacy.blank("en")
    before = ["entity_ruler", "merge_entities"]
    for name in before if merge_first else []:
        nlp.add_pipe(name)
    nlp.add_pipe("elmo")
    for name in [] if merge_first else before:
        nlp.add_pipe(name)
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    optimizer = nlp.initialize(lambda: training_examples(nlp))
    nlp.get_pipe("entity_ruler").add_patterns([{"label": "GPE", "pattern": "New York"}])
    gold = nlp.make_doc("Alice lives in New York .")
    gold.cats = {"POS": 1.0, "NEG": 0.0}
    return nlp, optimizer, [Example(nlp.make_doc(gold.text), gold), *training_examples(nlp)]


def test_a_component_retokenizing_the_batch_between_elmo_and_its_listener_is_named(tiny_elmo_dir):
    nlp, optimizer, examples = build(tiny_elmo_dir, merge_first=False)
    with pytest.raises(ValueError, match=f"^{re.escape(MERGED)}$"):
        nlp.update(examples, sgd=optimizer, annotates=["entity_ruler", "merge_entities"])


def test_retokenizing_before_elmo_as_the_error_says_trains(tiny_elmo_dir):
    nlp, optimizer, examples = build(tiny_elmo_dir, merge_first=True)
    losses: dict[str, float] = {}
    nlp.update(examples, sgd=optimizer, losses=losses, annotates=["entity_ruler", "merge_entities"])
    assert losses["textcat"] > 0
    assert len(nlp("Alice lives in New York .")) == 5
