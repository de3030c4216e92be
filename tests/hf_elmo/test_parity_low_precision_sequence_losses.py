"""A bfloat16 ``ElmoForSequenceClassification``'s regression and multi-label losses are taken in float32
against the labels as given, as its single-label loss is (``at_least_float32``): they were taken in
bfloat16, the float labels rounded to bfloat16 first (a regression target of 0.1234567 read as 0.1235)."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config, with_signal


@pytest.mark.parametrize(
    "num_labels, labels",
    [(1, torch.tensor([0.1234567, -2.7182818])), (3, torch.tensor([[0.3, 0.0, 1.0], [0.0, 0.7, 1.0]]))],
)
def test_a_bfloat16_heads_float_label_loss_is_float32_against_the_labels_as_given(num_labels, labels):
    torch.manual_seed(0)
    model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=num_labels))).to(torch.bfloat16).eval()
    out = model(**ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt"), labels=labels)
    logits = out.logits.float()
    if num_labels == 1:
        expected = torch.nn.functional.mse_loss(logits.squeeze(-1), labels)
    else:
        expected = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    assert out.logits.dtype == torch.bfloat16 and out.loss.dtype == torch.float32
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=1e-7)
