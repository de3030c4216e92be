"""A float64 head's class loss was computed in float32 (the float16-overflow guard cast every dtype
to float32): its loss and gradients lost precision silently, and torch.autograd.gradcheck failed.
Now it stays in float64, while float16 and bfloat16 logits are still summed in float32."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config

LABELS = {
    ElmoForTokenClassification: torch.tensor([[1, 0, 2], [0, -100, -100]]),
    ElmoForSequenceClassification: torch.tensor([2, 0]),
}


@pytest.mark.parametrize(
    "dtype, loss_dtype", [(torch.float64, torch.float64), (torch.bfloat16, torch.float32)], ids=["float64", "bfloat16"]
)
@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_the_class_loss_is_computed_in_float32_or_the_models_wider_dtype(head, dtype, loss_dtype):
    torch.manual_seed(0)
    model = head(tiny_config(num_labels=3)).to(dtype).eval()
    out = model(**ElmoTokenizer()(["Bob ran far", "a"], padding=True, return_tensors="pt"), labels=LABELS[head])
    assert out.loss.dtype == loss_dtype
    labels = LABELS[head].reshape(-1)
    expected = torch.nn.functional.cross_entropy(out.logits.reshape(len(labels), 3).to(loss_dtype), labels)
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=1e-12 if dtype == torch.float64 else 1e-6)
