"""The task heads refuse labels that are not class ids of the config, in one line."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config


def batch() -> dict[str, torch.Tensor]:
    return dict(ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt"))


@pytest.mark.parametrize(
    "head, labels, bad, where",
    [
        (ElmoForTokenClassification, [[0, 1, 3], [0, -100, -100]], 3, [0, 2]),
        (ElmoForTokenClassification, [[0, 1, 2], [-1, -100, -100]], -1, [1, 0]),
        (ElmoForTokenClassification, [[0, 1, 2], [0, 7, -100]], 7, [1, 1]),  # on padding too: a wrong label set
        (ElmoForSequenceClassification, [0, 3], 3, [1]),
        (ElmoForSequenceClassification, [-5, 0], -5, [0]),
    ],
)
def test_a_label_out_of_the_classes_is_one_line_naming_it_num_labels_and_id2label(head, labels, bad, where):
    """Was torch's "IndexError: Target 3 is out of bounds." (on a GPU, a device-side assert)."""
    model = head(tiny_config(num_labels=3)).eval()
    message = (
        f"^label {bad} at labels{re.escape(str(where))} is not a class id of num_labels=3 \\(0..2, or -100 for no "
        r"loss\): give the config every label, from_pretrained\(\.\.\., id2label=.*one entry a class"
    )
    with pytest.raises(ValueError, match=message):
        model(**batch(), labels=torch.tensor(labels))


@pytest.mark.parametrize(
    "head, labels",
    [
        (ElmoForTokenClassification, [[0, 1, 2], [2, -100, -100]]),
        (ElmoForSequenceClassification, [2, -100]),
    ],
)
def test_class_ids_and_minus_100_give_a_loss(head, labels):
    model = head(tiny_config(num_labels=3)).eval()
    assert torch.isfinite(model(**batch(), labels=torch.tensor(labels)).loss)


def test_float_labels_for_the_token_head_are_one_line_saying_to_make_them_class_ids():
    """Was torch's "expected target dtype to be Long or Byte, but got Float"."""
    model = ElmoForTokenClassification(tiny_config(num_labels=3)).eval()
    with pytest.raises(
        ValueError, match=r"^labels must be integer class ids 0\.\.2 .*got torch\.float32; .*\.long\(\)"
    ):
        model(**batch(), labels=torch.tensor([[0.0, 1, 2], [0, -100, -100]]))


@pytest.mark.parametrize(
    "head, labels, kind",
    [
        (ElmoForSequenceClassification, [0, 1], "the list [0, 1]"),
        (ElmoForSequenceClassification, np.array([0, 1]), "the ndarray array([0, 1])"),
        (ElmoForTokenClassification, [[0, 1, 2], [1, -100, -100]], "the list [[0, 1, 2], [1, -100, -100]]"),
    ],
)
def test_labels_that_are_not_a_tensor_are_one_line_naming_them_and_saying_to_convert_them(head, labels, kind):
    """Was "AttributeError: 'list' object has no attribute 'shape'" (a NumPy array's: no attribute 'to'); then
    "got builtins.list": the value is named as every refusal names one (``described``)."""
    model = head(tiny_config(num_labels=3)).eval()
    with pytest.raises(TypeError, match=rf"^labels must be a torch\.Tensor, got {re.escape(kind)}; .*torch\.as_tensor"):
        model(**batch(), labels=labels)
