"""``ElmoForBidirectionalLM`` run without gradients in training mode (as built, or after a training
loop: a user's perplexity loop that forgets ``eval()``) warns once: with the sampled softmax its loss
varies from call to call and is no perplexity (it was, silently, a sampled estimate far from the full
softmax's loss); with the full softmax and dropout, as ``ElmoModel`` warns. Trained with gradients,
or in eval mode, it says nothing."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForBidirectionalLM
from hf_elmo.char_ids import add_sentence_markers, batch_to_ids
from tests.hf_elmo.test_heads import tiny_config
from tests.hf_elmo.test_heads_pipeline_training_mode import WARNING, predictions_logged

SAMPLED = (
    "This ELMo LM is in training mode, where its loss is the sampled softmax's, which varies from call to call and "
    "is no perplexity: call model.eval() (the full softmax, no dropout) before evaluating\n"
)


def loss_of(model: ElmoForBidirectionalLM, **kwargs) -> float:
    """The LM's loss on one sentence of three words."""
    ids = add_sentence_markers(batch_to_ids([["a", "b", "c"]]), torch.tensor([3]))
    labels = torch.tensor([[1, 5, 6, 7, 2]])
    return model(input_ids=ids, lengths=torch.tensor([5]), labels=labels, **kwargs).loss.item()


def lm(**fields) -> ElmoForBidirectionalLM:
    torch.manual_seed(0)
    return ElmoForBidirectionalLM(tiny_config(vocab_size=50, num_sampled=8, **fields))


def test_an_lm_in_training_mode_evaluated_with_its_sampled_softmax_warns_once():
    model = lm()
    assert model.training and model.config.softmax == "sampled"  # as built
    with torch.no_grad():
        (first, second), log = predictions_logged(lambda: loss_of(model))
        assert first != second and log == SAMPLED
        full = loss_of(model.eval())
    assert full not in (first, second)  # what the user wanted: the full softmax's


@pytest.mark.parametrize(
    ("fields", "kwargs", "said"),
    [
        (dict(dropout=0.5), dict(full_softmax=True), WARNING),
        (dict(softmax="full", dropout=0.5), {}, WARNING),
        (dict(softmax="full"), {}, ""),  # nothing varies
        ({}, dict(full_softmax=True), ""),
    ],
)
def test_an_lm_in_training_mode_with_the_full_softmax_warns_only_of_dropout(fields, kwargs, said):
    model = lm(**fields)
    with torch.no_grad():
        _, log = predictions_logged(lambda: loss_of(model, **kwargs))
    assert log == said


@pytest.mark.parametrize("case", ["eval", "gradients"])
def test_an_lm_evaluated_in_eval_mode_or_trained_does_not_warn(case):
    model = lm(dropout=0.5).train(case != "eval")
    with torch.set_grad_enabled(case == "gradients"):
        _, log = predictions_logged(lambda: loss_of(model))
    assert log == ""
