"""A batch of no rows is refused in one line that names its shape and what to pass (BertModel fails on
one too, with torch's 'cannot reshape tensor of 0 elements'); a sentence of no words is a row."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoModel, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize("cls", [ElmoModel, ElmoForTokenClassification, ElmoForSequenceClassification])
def test_a_batch_of_no_rows_is_refused_naming_its_shape_and_what_to_pass(cls):
    """Was 'empty batch: input_ids has no rows', which named neither."""
    model = cls(tiny_config(num_labels=3))
    message = (
        r'^empty batch: input_ids \(0, 3, 50\) has no rows; pass at least one sentence \(a sentence of no words, "", '
        r"is a row\)$"
    )
    with pytest.raises(ValueError, match=message):
        model(input_ids=torch.zeros(0, 3, 50, dtype=torch.long))


def test_a_sentence_of_no_words_is_a_row_of_no_vectors():
    out = ElmoModel(tiny_config())(**ElmoTokenizer()([""], return_tensors="pt"))
    assert out.last_hidden_state.shape == (1, 0, 16)
