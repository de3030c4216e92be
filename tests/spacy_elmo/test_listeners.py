"""Listeners in training: they receive the batch's layers, their mixes learn, the frozen biLM does
not; fine-tuning; ``replace_listeners``; widths at initialize (spaCy issue 11547)."""

import gc
import re
import warnings
import weakref

import numpy as np
import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import SGD

import spacy_elmo.bilm
from hf_elmo import batch_to_ids
from spacy_elmo import ElmoLayers
from tests.spacy_elmo.pipeline_helpers import (
    loader_settings,
    ner_config,
    textcat_config,
    tok2vec_config,
    training_examples,
)

ROUNDS = 12


def build(tiny_elmo_dir, frozen=True):
    spacy.util.fix_random_seed(0)  # the task models' initial weights and dropout: a repeatable run
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"@architectures": "spacy-elmo.ElmoBiLm.v1", "frozen": frozen}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.01
    return nlp, examples, optimizer


def mix_node(nlp, name):
    return next(node for node in nlp.get_pipe(name).model.walk() if node.name == "elmo-scalar-mix")


def bilm_state(nlp):
    return {k: v.clone() for k, v in nlp.get_pipe("elmo").model.shims[0].elmo.state_dict().items()}


def train(nlp, examples, optimizer, rounds=ROUNDS):
    history = []
    for _ in range(rounds):
        losses = {}
        nlp.update(examples, sgd=optimizer, losses=losses)
        history.append(losses)
    return history


def record_listener_gradients(nlp, monkeypatch):
    """The list that gets a copy of the ``d_layers`` each listener of ``nlp``'s elmo component hands
    its gradient callback, as they are handed."""
    sent = []
    for listener in nlp.get_pipe("elmo").listeners:

        def receive(batch_id, outputs, backprop, docs=(), receive=listener.receive):
            def recorded(d_layers, backprop=backprop):
                sent.append([np.array(d) for d in d_layers])
                return backprop(d_layers)

            receive(batch_id, outputs, None if backprop is None else recorded, docs)

        monkeypatch.setattr(listener, "receive", receive)
    return sent


def direct_bilm_gradient(elmo, state, docs, sent):
    """The gradient, at the weights ``state``, of the sum over ``docs`` of the biLM's layers times the
    ``d_layers`` the listeners ``sent`` for them, computed in torch without the pipeline: each doc
    read whole (``TRAIN_DATA`` has no sentence boundaries or whitespace tokens)."""
    model = type(elmo)(elmo.config)
    model.load_state_dict(state)
    model.train()
    for i, doc in enumerate(docs):
        ids = batch_to_ids([[token.text for token in doc]], elmo.config.max_characters_per_token)
        layers = torch.stack(model(input_ids=ids, stateful=False, return_dict=True).hidden_states)[:, 0]
        (layers * torch.from_numpy(sum(d_layers[i] for d_layers in sent))).sum().backward()
    return {name: parameter.grad for name, parameter in model.named_parameters() if parameter.grad is not None}


def test_listener_widths_are_set_when_the_elmo_component_is_initialised(tiny_elmo_dir):
    nlp, _, _ = build(tiny_elmo_dir)
    elmo = nlp.get_pipe("elmo")
    assert sorted(elmo.listening_components) == ["ner", "textcat"]
    for listener in elmo.listeners:
        assert (listener.get_dim("nL"), listener.get_dim("nO")) == (3, 16)


def test_frozen_training_feeds_listeners_trains_mixes_and_keeps_the_biLM(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    before = bilm_state(nlp)
    history = train(nlp, examples, optimizer)
    elmo = nlp.get_pipe("elmo")
    for name in ("ner", "textcat"):
        first, last = (np.mean([h[name] for h in part]) for part in (history[:3], history[-3:]))
        assert last < first / 2, (name, [h[name] for h in history])
        s = mix_node(nlp, name).get_param("s")
        assert np.abs(s).max() > 1e-4, f"the scalar mix of {name} did not learn"
    assert all(losses["elmo"] == 0.0 for losses in history)
    after = bilm_state(nlp)
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert all(p.grad is None for p in elmo.model.shims[0].elmo.parameters())


@pytest.mark.parametrize("frozen", [True, False])
def test_listeners_hold_nothing_of_a_batch_after_nlp_update_returns(tiny_elmo_dir, monkeypatch, frozen):
    """Each listener is handed the batch's layers (with a fine-tuned biLM, a gradient callback
    that holds its autograd graph) and uses them in the update of its component, textcat's
    prediction on the batch included (``annotates``); once ``nlp.update`` returns, nothing of the
    batch is left (was: every listener held its last batch until the next one, or for good
    after training; on a GPU the whole batch's activations)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=frozen)
    train(nlp, examples, optimizer, rounds=1)
    listeners, shapes, handed = nlp.get_pipe("elmo").listeners, [], []
    for listener in listeners:

        def receive(batch_id, outputs, backprop, docs, receive=listener.receive):
            shapes.append([x.shape for x in outputs])
            handed.extend(weakref.ref(x) for x in [*outputs, *([] if frozen else [backprop])])
            receive(batch_id, outputs, backprop, docs)

        monkeypatch.setattr(listener, "receive", receive)
    gc.disable()  # released as the update ends, not by a later collection
    try:
        losses = nlp.update(examples, sgd=optimizer, annotates=["textcat"])
        assert shapes == [[(3, len(eg.predicted), 16) for eg in examples]] * len(listeners) == [shapes[0]] * 2
        assert losses["ner"] > 0 and (losses["elmo"] > 0) is not frozen
        assert [ref for ref in handed if ref() is not None] == []
        for listener in listeners:
            assert (listener._batch_id, listener._outputs, listener._backprop, len(listener._received)) == (
                None,
                None,
                None,
                0,
            )
    finally:
        gc.enable()


def test_each_component_owns_its_own_mix(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    train(nlp, examples, optimizer, rounds=3)
    assert not np.array_equal(mix_node(nlp, "ner").get_param("s"), mix_node(nlp, "textcat").get_param("s"))


def test_fine_tuning_updates_the_biLM(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    before = bilm_state(nlp)
    history = train(nlp, examples, optimizer, rounds=3)
    after = bilm_state(nlp)
    assert history[-1]["elmo"] > 0.0
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    assert "bilm.forward_layers.0.input_linear.weight" in changed


def test_a_fine_tuned_biLM_gets_the_sum_of_the_gradients_of_its_listeners(tiny_elmo_dir, monkeypatch):
    """``ner`` and ``textcat`` both listen to the fine-tuned biLM: its gradient is that of the sum of
    what both listeners hand back, computed here in torch from the same weights."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    train(nlp, examples, optimizer, rounds=2)  # ner's output layer starts at zero: no gradient at first
    elmo = nlp.get_pipe("elmo").model.shims[0].elmo
    for parameter in elmo.parameters():
        parameter.grad = None
    sent, before = record_listener_gradients(nlp, monkeypatch), bilm_state(nlp)
    nlp.update(examples, sgd=False)  # no step: the gradients stay on the parameters
    assert len(sent) == 2 and all(any(np.abs(d).max() > 0 for d in d_layers) for d_layers in sent)
    expected = direct_bilm_gradient(elmo, before, [eg.predicted for eg in examples], sent)
    scale = max(float(grad.abs().max()) for grad in expected.values())
    assert scale > 0 and {name for name, p in elmo.named_parameters() if p.grad is not None} == set(expected)
    for name, parameter in elmo.named_parameters():
        torch.testing.assert_close(parameter.grad, expected[name], rtol=1e-4, atol=1e-6 * scale)


def test_nlp_update_steps_a_fine_tuned_biLM_by_its_batch_s_gradient_at_the_weights_its_layers_came_from(
    tiny_elmo_dir, monkeypatch
):
    """``nlp.update(examples, sgd=...)`` calls the elmo component's ``finish_update`` right after its
    ``update``, before the listening components backpropagate: the step waits for their backward
    pass, so each update moves the biLM by its own batch's gradient, computed at the weights the
    batch's layers came from (was: the step came first, with the batch before's gradient, and changed
    the weights in place under this batch's autograd graph, whose gradient was then computed partly
    at the new weights: 7% off with Adam's default learning rate)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    train(nlp, examples, optimizer, rounds=2)  # ner's output layer starts at zero: no gradient at first
    elmo = nlp.get_pipe("elmo").model.shims[0].elmo
    sgd = SGD(0.1, grad_clip=0.0, use_averages=False)  # a step is -0.1 x the gradient
    sent = record_listener_gradients(nlp, monkeypatch)
    for _ in range(2):
        sent.clear()
        before = bilm_state(nlp)
        nlp.update(examples, sgd=sgd)
        expected = direct_bilm_gradient(elmo, before, [eg.predicted for eg in examples], sent)
        scale = max(float(grad.abs().max()) for grad in expected.values())
        steps = {name: (before[name] - parameter.detach()) / 0.1 for name, parameter in elmo.named_parameters()}
        assert scale > 0 and set(steps) == set(expected)
        error = max(float((steps[name] - expected[name]).abs().max()) for name in steps)
        assert error < 1e-3 * scale, (error, scale)


def test_a_step_left_by_a_batch_without_a_backward_pass_is_taken_once_before_the_next_forward_pass(
    tiny_elmo_dir, monkeypatch
):
    """On a batch of empty docs no listening component runs a backward pass, so the step that
    ``nlp.update`` asks of the elmo component (before its listeners) waits; the next update takes it
    before its forward pass, then its own: one step per update, none at weights a graph still reads
    (was: each step before the batch's backward pass, ``nlp.update``'s order)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    events = []
    run, shim = spacy_elmo.bilm._run, nlp.get_pipe("elmo").model.shims[0]
    monkeypatch.setattr(spacy_elmo.bilm, "_run", lambda *args: events.append("forward") or run(*args))
    monkeypatch.setattr(shim, "finish_update", lambda sgd, step=shim.finish_update: events.append("step") or step(sgd))
    monkeypatch.setattr(shim, "backward", lambda *args, run=shim.backward: events.append("backward") or run(*args))
    empty = [Example(nlp.make_doc(""), nlp.make_doc("")) for _ in examples]
    for batch in (examples, empty, examples):
        nlp.update(batch, sgd=optimizer)
    assert events == ["forward", "backward", "step", "step", "forward", "backward", "step"]


def test_an_elmo_update_given_sgd_false_leaves_the_gradients_of_a_fine_tuned_biLM_unstepped(tiny_elmo_dir):
    """``sgd=False``, no step (what ``spacy train`` gives ``nlp.update``), given to the elmo
    component's own ``update``: the listeners' backward pass leaves the biLM's gradients on its
    parameters (was: it stepped with ``False`` for an optimizer, a TypeError)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    train(nlp, examples, optimizer, rounds=2)  # ner's output layer starts at zero: no gradient at first
    before = bilm_state(nlp)
    nlp.get_pipe("elmo").update(examples, sgd=False)
    for name in ("ner", "textcat"):
        nlp.get_pipe(name).update(examples)
    after, elmo = bilm_state(nlp), nlp.get_pipe("elmo").model.shims[0].elmo
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in elmo.parameters())


def test_a_listener_given_another_batch_names_the_mismatch(tiny_elmo_dir):
    nlp, examples, _ = build(tiny_elmo_dir)
    nlp.get_pipe("elmo").update(examples[:2])
    with pytest.raises(ValueError, match="other than the one the elmo component"):
        nlp.get_pipe("ner").update(examples[2:4])


def test_replace_listeners_gives_ner_its_own_biLM_with_identical_predictions(tiny_elmo_dir, tmp_path):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    train(nlp, examples, optimizer, rounds=4)
    texts = [eg.reference.text for eg in examples]
    before = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)]
    scores_before = [nlp(t).cats for t in texts]
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])
    assert nlp.get_pipe("elmo").listening_components == ["textcat"]
    assert nlp.config["components"]["ner"]["model"]["tok2vec"]["elmo"]["@architectures"] == "spacy-elmo.ElmoMix.v1"
    after = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)]
    assert after == before
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert [[(e.start, e.end, e.label_) for e in doc.ents] for doc in loaded.pipe(texts)] == before
    for text, cats in zip(texts, scores_before):
        assert loaded(text).cats == pytest.approx(cats, abs=1e-6)


TWO_LISTENERS = ["model.tok2vec.elmo", "model.tok2vec.embed"]


def build_tagger_with_two_listeners(tiny_elmo_dir):
    """A tagger whose tok2vec mixes the elmo component's layers twice, with other mix settings."""
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    tok2vec = tok2vec_config()
    tok2vec["embed"] = {"@architectures": "spacy-elmo.ElmoMixListener.v1", "upstream": "elmo", "dropout": 0.25}
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": tok2vec}})
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    words, tags = ["Alice", "lives", "in", "Paris", "."], ["NNP", "VBZ", "IN", "NNP", "."]
    nlp.initialize(lambda: [Example.from_dict(nlp.make_doc(" ".join(words)), {"words": words, "tags": tags})])
    return nlp


def tagger_scores(nlp, texts):
    return nlp.get_pipe("tagger").model.predict([nlp(text) for text in texts])


def test_replace_listeners_of_a_component_with_two_listeners_gives_each_its_own_biLM(tiny_elmo_dir, tmp_path):
    nlp = build_tagger_with_two_listeners(tiny_elmo_dir)
    texts = ["Bob lives in Rome .", "Paris ."]
    before = tagger_scores(nlp, texts)
    nlp.replace_listeners("elmo", "tagger", TWO_LISTENERS[::-1])
    tok2vec = nlp.config["components"]["tagger"]["model"]["tok2vec"]
    assert (tok2vec["elmo"]["@architectures"], tok2vec["elmo"]["dropout"]) == ("spacy-elmo.ElmoMix.v1", 0.0)
    assert (tok2vec["embed"]["@architectures"], tok2vec["embed"]["dropout"]) == ("spacy-elmo.ElmoMix.v1", 0.25)
    assert nlp.get_pipe("elmo").listening_components == []
    nlp.remove_pipe("elmo")
    nlp.to_disk(tmp_path / "own-biLMs")
    alone = spacy.load(tmp_path / "own-biLMs")
    assert alone.pipe_names == ["tagger"]
    for score, expected in zip(tagger_scores(alone, texts), before):
        np.testing.assert_allclose(score, expected, atol=1e-6)


def test_replace_listeners_of_two_listeners_with_one_wrong_path_is_refused_before_anything_changes(tiny_elmo_dir):
    nlp = build_tagger_with_two_listeners(tiny_elmo_dir)
    config_before = nlp.config.to_str()
    with pytest.raises(ValueError) as info:
        nlp.replace_listeners("elmo", "tagger", ["model.tok2vec.elmo", "model.tok2vec.encode"])
    assert str(info.value) == (
        "nlp.replace_listeners: the ELMo listeners of 'tagger' are at model.tok2vec.elmo, model.tok2vec.embed, "
        'not model.tok2vec.encode: pass ["model.tok2vec.elmo", "model.tok2vec.embed"]'
    )
    with pytest.raises(ValueError, match="not model.tok2vec.elmo, model.tok2vec.elmo: pass"):
        nlp.replace_listeners("elmo", "tagger", ["model.tok2vec.elmo", "model.tok2vec.elmo"])
    assert nlp.config.to_str() == config_before
    assert len(nlp.get_pipe("elmo").listener_map["tagger"]) == 2


def rehearsal_examples(nlp):
    return [Example(nlp.make_doc(text), nlp.make_doc(text)) for text in ("Alice lives in Rome .", "Bob went home .")]


def test_replace_listeners_before_the_elmo_component_has_weights_is_refused_before_anything_changes(tiny_elmo_dir):
    """A copy of a biLM without weights, which has no loader of its own, would load the shipped
    model when the component is initialised, not the one given to the elmo component (was: so,
    silently but for the shipped model's notice, e.g. P = 128 beside elmo's tiny P = 8)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    with pytest.raises(ValueError) as info:
        nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])
    assert str(info.value) == (
        "nlp.replace_listeners: the elmo component 'elmo' has no biLM weights yet, so 'ner' would get a copy "
        "without them, which would load the shipped model, not the one given to 'elmo': load them first (in a new "
        "pipeline, call nlp.initialize() first (before anything runs the pipeline, such as an entity_ruler's "
        "phrase patterns); in a pipeline whose other components are trained, load them alone with "
        'nlp.get_pipe("elmo").initialize(lambda: [], nlp=nlp) (nlp.initialize() re-initialises every component, '
        "trained weights included)), then replace the listeners"
    )
    assert nlp.get_pipe_config("ner")["model"]["tok2vec"]["elmo"]["@architectures"] == "spacy-elmo.ElmoMixListener.v1"
    assert nlp.get_pipe("elmo").listening_components == ["ner"]


@pytest.mark.parametrize("first", ["elmo", "ner"])
def test_rehearse_with_listeners_says_they_cannot_rehearse_whichever_component_runs_first(tiny_elmo_dir, first):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    train(nlp, examples, optimizer, rounds=1)
    nlp.resume_training()
    others = [name for name in nlp.pipe_names if name != first]  # nlp.rehearse shuffles the components
    with pytest.raises(ValueError) as info:
        nlp.rehearse(rehearsal_examples(nlp), exclude=others)
    assert str(info.value).endswith(
        "nlp.rehearse runs the components in random order, so a component listening to an elmo component cannot "
        "rehearse: give it a biLM of its own first (nlp.replace_listeners), or exclude it and the elmo component "
        "(exclude=[...])" + (")" if first == "ner" else "")
    )
    if first == "elmo":
        assert str(info.value).startswith(
            "the elmo component 'elmo' cannot rehearse with its listeners ('ner', 'textcat')"
        )


def test_listeners_replaced_by_their_own_biLM_rehearse_and_elmo_rehearses_nothing(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    train(nlp, examples, optimizer, rounds=1)
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])
    nlp.replace_listeners("elmo", "textcat", ["model.tok2vec.elmo"])
    nlp.resume_training()
    losses = nlp.rehearse(rehearsal_examples(nlp))
    assert set(losses) == {"ner", "textcat"}
    assert nlp.get_pipe("elmo").rehearse(rehearsal_examples(nlp)) == {}


def test_frozen_annotating_elmo_feeds_listeners_through_doc_extension(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    losses = {}
    nlp.update(examples, sgd=optimizer, losses=losses, exclude=["elmo"], annotates=["elmo"])
    assert losses["ner"] > 0 and "elmo" not in losses
    assert all(listener._batch_id is None for listener in nlp.get_pipe("elmo").listeners)


def test_a_listener_without_upstream_layers_in_training_names_the_fix(tiny_elmo_dir):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    with pytest.raises(ValueError, match="annotating_components"):
        nlp.update(examples, sgd=optimizer, exclude=["elmo"])


@pytest.mark.parametrize(
    "left_out, says",
    [
        (
            "disabled",
            r"'elmo' is disabled \(nlp.select_pipes or \[nlp\] disabled\), so nlp.update does not run it: enable",
        ),
        ("excluded", r"nlp.update excludes 'elmo' \(its exclude=\[...\]\): leave it out of exclude"),
    ],
)
def test_a_listener_trained_without_its_elmo_component_says_how_it_was_left_out(tiny_elmo_dir, left_out, says):
    """``with nlp.select_pipes(enable="ner"): nlp.update(...)``, spaCy's way to train one component,
    or ``exclude=["elmo"]``, leaves the elmo component out of the update: the error names which
    and how to keep it in (was: it advised only [training] annotating_components and spoke of
    nlp.rehearse, neither of which was in play)."""
    nlp, examples, optimizer = build(tiny_elmo_dir)
    enabled, excluded = (["ner"], []) if left_out == "disabled" else (nlp.pipe_names, ["elmo"])
    with nlp.select_pipes(enable=enabled), pytest.raises(ValueError) as error:
        nlp.update(examples, sgd=optimizer, exclude=excluded)
    assert re.search(says, str(error.value)) and "rehearse" not in str(error.value)


@pytest.mark.parametrize("frozen", [True, False])
def test_an_update_without_the_elmo_component_gets_no_layers_from_the_one_before(tiny_elmo_dir, frozen):
    """The batch an earlier ``nlp.update`` handed the listeners served that update only (was: a
    frozen biLM's layers of the same texts were used again; a fine-tuned one's failed in torch, its
    graph already freed)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=frozen)
    nlp.update(examples, sgd=optimizer)
    with pytest.raises(ValueError, match="no layers for this training batch: the elmo component was neither"):
        nlp.update(examples, sgd=optimizer, exclude=["elmo"])


def test_a_listening_component_disabled_while_another_was_added_gets_its_layers_in_training_when_enabled_again(
    tiny_elmo_dir,
):
    """spaCy links listeners to the elmo component for the enabled components only, whenever a
    component is added, removed or renamed: ``ner`` disabled (``spacy.load(..., disable=["ner"])``,
    ``nlp.select_pipes``) while ``textcat`` is added, then enabled again, is no longer linked. The
    elmo component's update links the listeners of the components after it first, so ``ner`` trains
    (was: 'no layers for this training batch', advising [training] annotating_components)."""
    nlp, examples, optimizer = build(tiny_elmo_dir)
    nlp.remove_pipe("textcat")
    with nlp.select_pipes(disable=["ner"]):
        nlp.add_pipe("textcat", config=textcat_config())
    assert nlp.get_pipe("elmo").listening_components == ["textcat"]  # spaCy's links
    nlp.get_pipe("textcat").initialize(lambda: examples, nlp=nlp)
    losses = nlp.update(examples, sgd=optimizer)
    assert losses["ner"] > 0 and losses["textcat"] > 0
    assert nlp.get_pipe("elmo").listening_components == ["ner", "textcat"]


@pytest.mark.parametrize("left_out", ["disabled", "excluded"])
def test_a_fine_tuned_biLM_gets_the_gradient_of_the_components_updated_while_the_last_listening_one_is_left_out(
    tiny_elmo_dir, left_out
):
    """The last listener backpropagates the summed gradient into a fine-tuned biLM; with the last
    listening component (``textcat``) disabled (``nlp.select_pipes``) or excluded (``nlp.update(...,
    exclude=...)``, as ``spacy train`` excludes its frozen_components), that is the last one updated,
    ``ner``'s (was: ``textcat``'s, never called: the biLM got no gradient at all, silently)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    train(nlp, examples, optimizer, rounds=2)  # ner's output layer starts at zero: no gradient at first
    elmo = nlp.get_pipe("elmo").model.shims[0].elmo
    for parameter in elmo.parameters():
        parameter.grad = None  # what the training steps left
    disabled, excluded = (["textcat"], []) if left_out == "disabled" else ([], ["textcat"])
    with nlp.select_pipes(disable=disabled):
        losses = nlp.update(examples, sgd=False, exclude=excluded)  # no step: the gradients stay on the parameters
    assert losses["elmo"] > 0
    assert any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in elmo.parameters())


@pytest.mark.parametrize("left_out", ["disabled", "excluded", "excluded and annotating"])
def test_a_listening_component_that_an_update_leaves_out_gets_nothing_of_its_batch(
    tiny_elmo_dir, monkeypatch, left_out
):
    """A listener whose component ``nlp.update`` does not update (disabled: ``nlp.select_pipes``;
    excluded: ``exclude=``, ``spacy train``'s frozen_components) is never called in it, so it gets
    no layers or gradient callback (a fine-tuned biLM's: its autograd graph); excluded but in
    ``annotates``, the layers of the docs it predicts on, from zero features nowhere (was: each got
    the batch and its callback, and held them after the update)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=False)
    elmo, got = nlp.get_pipe("elmo"), {}
    for name, (listener,) in elmo.listener_map.items():

        def receive(batch_id, outputs, backprop, docs=(), receive=listener.receive, name=name):
            got[name] = (backprop is not None, len(list(docs)))
            receive(batch_id, outputs, backprop, docs)

        monkeypatch.setattr(listener, "receive", receive)
    disabled = ["textcat"] if left_out == "disabled" else []
    excluded, annotates = ([], []) if disabled else (["textcat"], ["textcat"] if "annotating" in left_out else [])
    with warnings.catch_warnings(), nlp.select_pipes(disable=disabled):
        warnings.simplefilter("error")  # the listener warns when it reads zero features
        losses = nlp.update(examples, sgd=optimizer, exclude=excluded, annotates=annotates)
    assert got == {"ner": (True, len(examples)), "textcat": (False, len(examples) if annotates else 0)}
    assert losses["ner"] > 0 and "textcat" not in losses
    textcat = elmo.listener_map["textcat"][0]
    assert (textcat._batch_id, textcat._outputs, textcat._backprop) == (None, None, None)


@pytest.mark.parametrize("frozen", [True, False])
def test_a_listening_component_left_out_of_an_update_reads_nothing_of_its_batch_in_a_later_one(tiny_elmo_dir, frozen):
    """``ner`` excluded from an update, then updated without the elmo component on the same texts,
    is refused as a batch without layers (was: it trained on the layers of the batch before, kept
    since, and called its gradient callback, silently)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=frozen)
    nlp.update(examples, sgd=optimizer, exclude=["ner"])
    with nlp.select_pipes(enable=["elmo", "ner"]):
        with pytest.raises(ValueError, match="no layers for this training batch: the elmo component was neither"):
            nlp.update(examples, sgd=optimizer, exclude=["elmo"])


@pytest.mark.parametrize("frozen", [True, False])
def test_a_listening_component_updated_without_a_backward_pass_holds_nothing_of_its_batch_after_the_update(
    tiny_elmo_dir, frozen
):
    """``ner`` updated on a batch without entity annotation runs no backward pass, so its listener
    does not release the batch itself: the batch goes with its docs as ``nlp.update`` returns, and
    an update of ``ner`` alone on the same texts later is refused as one without layers (was: the
    listener held the batch until the elmo component's next update, and ``ner`` trained on it)."""
    nlp, examples, optimizer = build(tiny_elmo_dir, frozen=frozen)
    cats_only = []
    for example in examples:
        reference = nlp.make_doc(example.reference.text)
        reference.cats = example.reference.cats
        cats_only.append(Example(nlp.make_doc(reference.text), reference))
    gc.disable()  # released as the update ends, not by a later collection
    try:
        losses = nlp.update(cats_only, sgd=optimizer)
        listener = nlp.get_pipe("elmo").listener_map["ner"][0]
        assert losses["ner"] == 0 and (listener._batch_id, listener._outputs, listener._backprop) == (None, None, None)
    finally:
        gc.enable()
    with nlp.select_pipes(enable=["elmo", "ner"]):
        with pytest.raises(ValueError, match="no layers for this training batch: the elmo component was neither"):
            nlp.update(examples, sgd=optimizer, exclude=["elmo"])


def test_standalone_mix_owns_its_biLM_and_round_trips(tiny_elmo_dir, tmp_path):
    nlp = spacy.blank("en")
    config = textcat_config()
    config["model"]["tok2vec"]["elmo"] = {
        "@architectures": "spacy-elmo.ElmoMix.v1",
        "bilm": {"@architectures": "spacy-elmo.ElmoBiLm.v1", "loader": loader_settings(tiny_elmo_dir)["loader"]},
        "dropout": 0.0,
    }
    nlp.add_pipe("textcat", config=config)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.01
    history = train(nlp, examples, optimizer, rounds=4)
    assert history[-1]["textcat"] < history[0]["textcat"]
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    for eg in examples:
        assert loaded(eg.reference.text).cats == pytest.approx(nlp(eg.reference.text).cats, abs=1e-6)


def test_layer_weights_plot_reports_softmax_s_and_gamma_of_every_listener(tiny_elmo_dir, tmp_path):
    from spacy_elmo import plot_layer_weights

    nlp, examples, optimizer = build(tiny_elmo_dir)
    train(nlp, examples, optimizer, rounds=2)
    mixes = plot_layer_weights(nlp, tmp_path / "plots" / "weights.png")  # the folder is made
    assert (tmp_path / "plots" / "weights.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [mix.component for mix in mixes] == ["ner", "textcat"]
    for mix in mixes:
        node = mix_node(nlp, mix.component)
        expected = torch.softmax(torch.from_numpy(node.get_param("s")).double(), dim=0).numpy()
        np.testing.assert_allclose(mix.weights, expected, atol=1e-7)
        assert mix.gamma == pytest.approx(float(node.get_param("gamma")[0]))


def test_a_component_that_changes_tokens_before_a_listener_feeds_it_layers_of_the_new_tokens(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    ruler = nlp.add_pipe("entity_ruler")
    nlp.add_pipe("merge_entities")
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    ruler.add_patterns([{"label": "GPE", "pattern": "New York City"}])  # runs elmo on the patterns: after initialize
    doc = nlp("They moved to New York City last year .")
    assert len(doc) == 7 and doc._.elmo.layers.shape[1] == 7 and set(doc.cats) == {"POS", "NEG"}


def test_a_listener_whose_upstream_s_layers_a_later_elmo_component_replaced_says_so(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", name="elmo_a")
    nlp.add_pipe("elmo", name="elmo_b")
    config = textcat_config()
    config["model"]["tok2vec"]["elmo"]["upstream"] = "elmo_a"
    nlp.add_pipe("textcat", config=config)
    for name in ("elmo_a", "elmo_b"):
        nlp.config["initialize"]["components"][name] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    with pytest.raises(
        ValueError, match="found in doc._.elmo the layers of the elmo component 'elmo_b', not of 'elmo_a'"
    ):
        nlp("Alice lives in Paris .")
    with nlp.select_pipes(disable=["elmo_b"]):
        assert set(nlp("Alice lives in Paris .").cats) == {"POS", "NEG"}


@pytest.mark.parametrize("shape, says", [((3, 32), "width 2P = 32"), ((4, 16), "width 2P = 16 in 4 layers (L+1)")])
def test_a_listener_given_doc_layers_of_another_biLM_s_widths_names_them(tiny_elmo_dir, shape, says):
    """Docs whose ``doc._.elmo`` another pipeline's biLM computed (e.g. read from what ``spacy apply``
    wrote), run through a listening component without this pipeline's elmo component, are refused
    in one line naming both widths (was: blis's "Shape mismatch for blis.gemm: (5, 48), (32, 48)",
    or thinc's "shape-mismatch for sum")."""
    nlp, _, _ = build(tiny_elmo_dir)
    doc = nlp.make_doc("Alice lives in Paris .")
    n_layers, width = shape
    doc._.elmo = ElmoLayers.of(doc, np.zeros((n_layers, len(doc), width), dtype="float32"), "elmo")
    expected = f"doc._.elmo holds layers of {says}, but the listening component was trained on"
    with pytest.raises(ValueError, match=re.escape(expected)):
        nlp.get_pipe("ner")(doc)


def initialized_textcat_pipeline(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    return nlp


def test_a_listener_of_a_renamed_elmo_component_says_to_set_its_upstream(tiny_elmo_dir):
    nlp = initialized_textcat_pipeline(tiny_elmo_dir)
    nlp.rename_pipe("elmo", "bilm")
    renamed = (
        """if 'bilm' is 'elmo' renamed, set the listener's upstream to 'bilm' (or "*"; in a saved pipeline, upstream"""
    )
    with pytest.raises(ValueError, match=re.escape(renamed + " in its config.cfg)")):
        nlp("Alice lives in Paris .")


def test_an_elmo_component_sourced_after_its_listener_says_so_at_the_first_doc_and_disabled_it_is_no_error(
    tiny_elmo_dir,
):
    trained = initialized_textcat_pipeline(tiny_elmo_dir)
    nlp = spacy.blank("en")
    nlp.add_pipe("textcat", source=trained)
    nlp.add_pipe("elmo", source=trained)  # sourced: neither its factory nor initialize checks the order
    with pytest.raises(ValueError, match="listening to the elmo component 'elmo' ran on this doc before 'elmo' did"):
        nlp("Alice lives in Paris .")
    with nlp.select_pipes(disable=["elmo"]):  # the documented way to predict from zero ELMo features
        assert set(nlp("Alice lives in Paris .").cats) == {"POS", "NEG"}


def test_a_doc_from_a_pipeline_loaded_without_elmo_is_refused_by_one_with_it_naming_that_cause(tiny_elmo_dir, tmp_path):
    initialized_textcat_pipeline(tiny_elmo_dir).to_disk(tmp_path / "pipeline")
    without, full = spacy.load(tmp_path / "pipeline", exclude=["elmo"]), spacy.load(tmp_path / "pipeline")
    with pytest.warns(UserWarning, match="predicts from zero ELMo features"):
        doc = without("Alice lives in Paris .")
    cause = r"if the doc came from another pipeline without 'elmo' .*, run this one on a new doc, nlp\(doc.text\)"
    with pytest.raises(ValueError, match=cause):
        full(doc)
    assert set(full(doc.text).cats) == {"POS", "NEG"}


def test_a_doc_first_run_with_elmo_disabled_then_with_it_is_no_error(tiny_elmo_dir):
    nlp = initialized_textcat_pipeline(tiny_elmo_dir)
    doc = nlp.make_doc("Alice lives in Paris .")
    with nlp.select_pipes(disable=["elmo"]):
        zero = dict(nlp(doc).cats)
    assert nlp(doc)._.elmo is not None and set(doc.cats) == set(zero)
    docs = list(nlp.pipe(["Bob lives in Rome .", "Zoe too ."], disable=["elmo"]))
    assert all(d._.elmo is not None for d in nlp.get_pipe("elmo").pipe(docs))


ZERO_FEATURES = (
    "ELMo listener (upstream 'elmo'): the elmo component 'elmo' did not run on these docs (no doc._.elmo), so the "
    "listening component predicts from zero ELMo features, which gives poor predictions: leave 'elmo' out of "
    "disable= and exclude= (spacy.load, nlp.select_pipes, nlp.pipe) and run it before the listening component; "
    "a doc joined by Doc.from_docs has none either (spaCy drops doc._.elmo there, its warning W101): run the elmo "
    "component on the joined doc (said once per listener)"
)


@pytest.mark.parametrize("run", ["select_pipes", "pipe_disable", "load_exclude"])
def test_a_listener_whose_elmo_component_did_not_run_warns_once_and_initialize_does_not(tiny_elmo_dir, tmp_path, run):
    texts = ["Alice lives in Paris .", "Bob hates London ."]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # shape inference reads unannotated sample docs: no warning
        nlp = initialized_textcat_pipeline(tiny_elmo_dir)
        with nlp.select_pipes(disable=["elmo"]):  # as spacy train initialises beside a frozen elmo
            nlp.initialize(lambda: training_examples(nlp))
        list(nlp.pipe(texts))
    nlp.to_disk(tmp_path / "pipeline")

    def select_pipes():
        with nlp.select_pipes(disable=["elmo"]):
            return [nlp(text) for text in texts * 2]

    runs = {
        "select_pipes": select_pipes,
        "pipe_disable": lambda: list(nlp.pipe(texts * 2, disable=["elmo"])),
        "load_exclude": lambda: list(spacy.load(tmp_path / "pipeline", exclude=["elmo"]).pipe(texts * 2)),
    }
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")  # every warning is recorded: the listener's is there once, not per doc
        docs = runs[run]()
    assert all(set(doc.cats) == {"POS", "NEG"} for doc in docs)
    assert [str(w.message) for w in record if "ELMo" in str(w.message)] == [ZERO_FEATURES]


@pytest.mark.parametrize("token_vectors", [None, False])
def test_a_listener_given_a_span_as_doc_names_as_doc_as_the_cause_and_the_fixes(tiny_elmo_dir, token_vectors):
    """A doc that ``span.as_doc()`` made from an annotated doc has no ``doc._.elmo``: the listener
    says so, and how to give it layers (was: that the elmo component was left out by disable= or
    exclude=, which it was not), whether or not the elmo component sets token vectors."""
    from spacy_elmo import ElmoLayers

    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"token_vectors": token_vectors})
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    doc = nlp("Alice lives in Paris . Bob too .")
    span = doc[0:5]
    with pytest.warns(UserWarning, match=re.escape("this doc was made by span.as_doc() from a doc the elmo compo")):
        nlp.get_pipe("textcat")(span.as_doc())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # either fix gives the listener layers: no warning
        ran = nlp(span.as_doc())
        given = span.as_doc()
        given._.elmo = ElmoLayers.of(given, doc._.elmo.layers[:, span.start : span.end], doc._.elmo.component)
        nlp.get_pipe("textcat")(given)
    assert set(ran.cats) == set(given.cats) == {"POS", "NEG"}
    with pytest.warns(UserWarning, match=re.escape(ZERO_FEATURES)):  # a doc elmo never saw: the other cause
        nlp.get_pipe("textcat")(nlp.make_doc("Alice lives in Paris ."))


def test_a_component_that_holds_its_own_biLM_without_weights_says_how_to_load_them_without_naming_elmo(
    tiny_elmo_dir,
):
    """Was: 'nlp.get_pipe("elmo").initialize(...)' in a pipeline without an elmo component."""
    config = textcat_config()
    config["model"]["tok2vec"]["elmo"] = {
        "@architectures": "spacy-elmo.ElmoMix.v1",
        "bilm": {"@architectures": "spacy-elmo.ElmoBiLm.v1", "loader": loader_settings(tiny_elmo_dir)["loader"]},
        "dropout": 0.0,
    }
    nlp = spacy.blank("en")
    nlp.add_pipe("textcat", config=config)
    with pytest.raises(ValueError) as info:
        nlp("The cat sat .")
    message = str(info.value)
    assert message.startswith("the ELMo biLM has no weights yet: in a new pipeline, call nlp.initialize() first")
    assert 'nlp.get_pipe("NAME").initialize(lambda: [], nlp=nlp)' in message and '"elmo"' not in message
    assert message.endswith(
        "NAME being the component that holds this biLM (the elmo component, or one whose own "
        "model holds it through spacy-elmo.ElmoMix.v1)"
    )


def test_an_annotating_listening_component_predicts_in_update_from_the_layers_its_elmo_component_computed(
    tiny_elmo_dir, monkeypatch
):
    """``[training] annotating_components = ["textcat"]`` beside an elmo component that does not
    annotate: ``nlp.update`` has textcat predict on the batch, in batches of its own, right after
    its update; it reads the layers the elmo component computed for those docs, so its scores are
    what the updated textcat predicts on annotated docs (was: zero ELMo features, with a warning)."""
    nlp, examples, optimizer = build(tiny_elmo_dir)
    textcat, annotated = nlp.get_pipe("textcat"), []
    set_annotations = textcat.set_annotations
    monkeypatch.setattr(textcat, "set_annotations", lambda docs, scores: annotated.append(scores))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the listener warns when it reads zero features
        nlp.batch_size = 2  # what nlp.update's annotating components predict in
        nlp.update(examples, sgd=optimizer, annotates=["textcat"])
    monkeypatch.setattr(textcat, "set_annotations", set_annotations)
    with nlp.select_pipes(enable=["elmo"]):
        docs = [nlp(eg.predicted.text) for eg in examples]
    assert len(annotated) == 3  # six docs, two a batch
    np.testing.assert_allclose(np.concatenate(annotated), textcat.predict(docs), atol=1e-6)
