"""spaCy's other training and prediction flows with an ``elmo`` component and two listening components
(``ner``, ``textcat``): ``nlp.update`` without an optimizer, ``nlp.resume_training``, one listening component
left out of the update (``exclude``, as ``spacy train``'s frozen_components), ``nlp.pipe`` with
``as_tuples`` and ``component_cfg``, and ``nlp.evaluate`` of docs the pipeline already ran."""

import numpy as np
import pytest
import spacy
from spacy.training import Example

from spacy_elmo.bilm import get_elmo
from tests.spacy_elmo.pipeline_helpers import (
    loader_settings,
    ner_config,
    textcat_config,
    training_examples,
)


def build(tiny_elmo_dir, frozen: bool = True):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"frozen": frozen}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    return nlp, examples, nlp.initialize(lambda: examples)


def bilm_weights(nlp) -> dict:
    return {name: value.detach().clone() for name, value in get_elmo(nlp.get_pipe("elmo").model).state_dict().items()}


def same_weights(one: dict, other: dict) -> bool:
    return one.keys() == other.keys() and all(np.array_equal(one[k].numpy(), other[k].numpy()) for k in one)


@pytest.mark.parametrize("frozen", [True, False])
def test_update_without_an_optimizer_trains_with_the_pipelines_own_and_a_frozen_biLM_stays(tiny_elmo_dir, frozen):
    nlp, examples, _ = build(tiny_elmo_dir, frozen)
    before = bilm_weights(nlp)
    losses = [nlp.update(examples, sgd=None) for _ in range(8)]
    assert losses[-1]["textcat"] < losses[0]["textcat"]
    assert same_weights(bilm_weights(nlp), before) is frozen
    assert (losses[-1]["elmo"] > 0) is not frozen


def test_resume_training_then_updates_train_the_listeners_and_leave_a_frozen_biLM(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    for _ in range(2):
        nlp.update(examples, sgd=optimizer)
    before = bilm_weights(nlp)
    optimizer = nlp.resume_training()
    losses = [nlp.update(examples, sgd=optimizer) for _ in range(8)]
    assert losses[-1]["textcat"] < losses[0]["textcat"]
    assert same_weights(bilm_weights(nlp), before)


def test_a_listening_component_left_out_of_the_update_keeps_its_weights_and_the_other_trains(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    ner = nlp.get_pipe("ner").model.to_bytes()
    losses = [nlp.update(examples, sgd=optimizer, exclude=["ner"]) for _ in range(8)]
    assert "ner" not in losses[-1] and losses[-1]["textcat"] < losses[0]["textcat"]
    assert nlp.get_pipe("ner").model.to_bytes() == ner


def test_pipe_as_tuples_keeps_each_context_and_component_cfg_sets_the_elmo_batches(tiny_elmo_dir, monkeypatch):
    nlp, examples, _ = build(tiny_elmo_dir)
    texts = [example.reference.text for example in examples]
    plain = list(nlp.pipe(texts, batch_size=4))
    elmo, batches = nlp.get_pipe("elmo"), []
    predict = elmo.predict
    monkeypatch.setattr(elmo, "predict", lambda docs: batches.append(len(docs)) or predict(docs))
    tuples = list(nlp.pipe(zip(texts, range(len(texts))), as_tuples=True, batch_size=4))
    assert [context for _, context in tuples] == list(range(len(texts))) and batches == [4, 2]
    assert [doc.text for doc, _ in tuples] == texts
    for (doc, _), expected in zip(tuples, plain):
        np.testing.assert_array_equal(doc._.elmo.layers, expected._.elmo.layers)
        assert doc.cats == expected.cats
    batches.clear()
    one_by_one = list(nlp.pipe(texts, batch_size=4, component_cfg={"elmo": {"batch_size": 1}}))
    assert batches == [1] * len(texts)
    for doc, expected in zip(one_by_one, plain):
        np.testing.assert_array_equal(doc._.elmo.layers, expected._.elmo.layers)


def test_evaluate_of_docs_the_pipeline_already_ran_scores_as_of_new_docs(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    for _ in range(4):
        nlp.update(examples, sgd=optimizer)
    new = nlp.evaluate(training_examples(nlp))
    ran = nlp.evaluate([Example(nlp(example.reference.text), example.reference) for example in examples])
    for key in ("ents_f", "ents_p", "ents_r", "cats_score"):
        assert ran[key] == new[key]
