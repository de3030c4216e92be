"""Class ids of an integer dtype other than int64 (int32 ones from NumPy on Windows, or
``torch.from_numpy`` of an int32 column) stopped the heads' loss with torch's 'expected target
dtype to be Long or Byte, but got Int'; they now give the loss of the same ids in int64."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config

LABELS = {
    ElmoForTokenClassification: torch.tensor([[1, 0, 2], [0, -100, -100]]),
    ElmoForSequenceClassification: torch.tensor([2, 0]),
}


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16])
@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_class_ids_of_another_integer_dtype_give_the_int64_loss(head, dtype):
    torch.manual_seed(0)
    model = head(tiny_config(num_labels=3, problem_type="single_label_classification")).eval()
    batch = ElmoTokenizer()(["Bob ran far", "a"], padding=True, return_tensors="pt")
    expected = model(**batch, labels=LABELS[head]).loss
    torch.testing.assert_close(model(**batch, labels=LABELS[head].to(dtype)).loss, expected, rtol=0, atol=0)
