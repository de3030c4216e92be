"""A batch without a labelled position (every label -100, or texts without words) has a loss of 0,
not the NaN mean of no positions."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize(
    "head, texts, labels",
    [
        (ElmoForTokenClassification, ["a b", "c"], [[-100, -100], [-100, -100]]),
        (ElmoForTokenClassification, ["", ""], torch.zeros(2, 0, dtype=torch.long)),  # texts without words
        (ElmoForSequenceClassification, ["a b", "c"], [-100, -100]),
    ],
)
def test_a_batch_without_a_labelled_position_has_a_zero_loss_and_zero_gradients(head, texts, labels):
    """Was a NaN loss (torch's mean over no positions): a NaN training step and eval_loss."""
    model = head(tiny_config(num_labels=3))
    out = model(**ElmoTokenizer()(texts, padding=True, return_tensors="pt"), labels=torch.as_tensor(labels))
    assert out.loss.item() == 0.0
    out.loss.backward()
    assert model.classifier.weight.grad is not None and not model.classifier.weight.grad.any()


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_the_loss_is_still_the_mean_over_the_labelled_positions(head):
    torch.manual_seed(0)
    model = head(tiny_config(num_labels=3)).eval()
    labels = torch.tensor([[1, -100], [2, -100]]) if head is ElmoForTokenClassification else torch.tensor([1, -100])
    out = model(**ElmoTokenizer()(["a b", "c"], padding=True, return_tensors="pt"), labels=labels)
    expected = torch.nn.functional.cross_entropy(out.logits.reshape(-1, 3), labels.reshape(-1))
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=1e-6)


def test_the_loss_of_a_float16_head_over_many_tokens_is_finite():
    """The sum over the labelled positions is taken in float32: in float16 it overflowed to inf past
    65504 (here 40,000 tokens at a loss of about 2 each)."""
    torch.manual_seed(0)
    model = ElmoForTokenClassification(tiny_config(num_labels=8))
    logits = torch.randn(100, 400, 8, dtype=torch.float16)
    labels = torch.randint(0, 8, (100, 400))
    loss = model._class_loss(logits, labels)
    expected = torch.nn.functional.cross_entropy(logits.float().reshape(-1, 8), labels.reshape(-1))
    torch.testing.assert_close(loss, expected, rtol=1e-5, atol=1e-5)
