"""The LM refuses a batch of no rows or of no steps in one line naming its shape and what to pass, as
``ElmoModel`` and the task heads do (it named the shape alone)."""

from __future__ import annotations

import re

import pytest
import torch

from hf_elmo import ElmoForBidirectionalLM
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize(
    ("batch", "steps", "said"),
    [
        (0, 3, "has no rows; pass at least one sentence"),
        (1, 0, "has no steps; give each row its sentence between its markers, <S> ... </S>"),
    ],
)
def test_an_empty_batch_is_refused_saying_what_to_pass(batch, steps, said):
    model = ElmoForBidirectionalLM(tiny_config(vocab_size=10))
    message = f"^empty batch: input_ids \\({batch}, {steps}, 50\\) {re.escape(said)}$"
    with pytest.raises(ValueError, match=message):
        model(
            input_ids=torch.ones(batch, steps, 50, dtype=torch.long),
            lengths=torch.full((batch,), steps, dtype=torch.long),
            labels=torch.ones(batch, steps, dtype=torch.long),
        )
