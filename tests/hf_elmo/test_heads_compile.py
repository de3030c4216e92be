"""torch.compile of the token head: its check for transformers' stock pipeline (which reads the caller's
frame) is left out of the trace, which had warned "Dynamo does not know how to trace the builtin
`sys._getframe`" (with a hint to file a torch issue) and broken the graph there."""

from __future__ import annotations

import warnings

import torch

from hf_elmo import ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config


def test_a_compiled_token_head_gives_the_eager_logits_without_a_warning():
    torch.manual_seed(0)
    model = ElmoForTokenClassification(tiny_config(num_labels=3)).eval()
    batch = ElmoTokenizer()(["the cat sat", "a dog"], padding=True, return_tensors="pt")
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        logits = torch.compile(model, backend="eager")(**batch).logits
    torch._dynamo.reset()
    assert [str(w.message) for w in caught] == []
    with torch.no_grad():
        torch.testing.assert_close(logits, model(**batch).logits, rtol=0, atol=1e-6)
