"""The token layer is written at the tokens' indices, not through the boolean mask: torch.compile
(inductor) cannot compile the backward of a write through a mask, and logged a graph-break error
for it at every compile of a training step."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from hf_elmo import ElmoModel, ElmoTokenizer
from hf_elmo.modeling_elmo import runs_as_built
from tests.hf_elmo.test_heads import tiny_config

REPO = Path(__file__).resolve().parents[2]


def masked_token_embeddings(model: ElmoModel, char_ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The token layer as it was written, through the boolean mask."""
    out = char_ids.new_zeros(*mask.shape, model.config.projection_dim, dtype=model.dtype)
    if model.config.bilm_implementation == "plain" or not runs_as_built(model.char_cnn):
        out[mask] = model.char_cnn(char_ids[mask]).to(out.dtype)
    else:
        distinct, inverse = torch.unique(char_ids[mask], dim=0, return_inverse=True)
        out[mask] = model.token_cache.token_layer(distinct, model.char_cnn)[inverse].to(out.dtype)
    return out


@pytest.mark.parametrize("implementation", ["fast", "plain"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_token_layer_and_its_gradients_are_those_of_the_masked_write_bit_for_bit(implementation, dtype):
    torch.manual_seed(0)
    model = ElmoModel(tiny_config(bilm_implementation=implementation)).to(dtype)
    batch = ElmoTokenizer()(["the cat sat on the mat", "a dog", "", "the the x"], padding=True, return_tensors="pt")
    char_ids, mask = batch["input_ids"], batch["attention_mask"].bool()
    results = []
    for token_embeddings in (model.token_embeddings, lambda c, m: masked_token_embeddings(model, c, m)):
        model.zero_grad()
        out = token_embeddings(char_ids, mask)
        (out.float() * torch.arange(out.numel()).view_as(out).sin()).sum().backward()
        results.append((out.detach(), [p.grad.clone() for p in model.char_cnn.parameters() if p.grad is not None]))
    (out, grads), (expected, expected_grads) = results
    assert torch.equal(out, expected)
    assert len(grads) == len(expected_grads) > 0
    assert all(torch.equal(g, e) for g, e in zip(grads, expected_grads))


@pytest.mark.slow  # ~30 s: inductor compiles a training step in a new process
def test_a_compiled_training_step_logs_no_graph_break_error(tmp_path):
    """Was 'Backend compiler `inductor` failed with aten.nonzero.default. Adding a graph break.' and
    'Error detected in IndexPutBackward0' at the masked write, twice per compile."""
    script = """
        import torch
        from hf_elmo import ElmoModel, ElmoTokenizer
        from tests.hf_elmo.test_heads import tiny_config

        torch.manual_seed(0)
        model = ElmoModel(tiny_config()).train()
        batch = ElmoTokenizer()(["the cat sat", "a dog"], padding=True, return_tensors="pt")
        compiled = torch.compile(model)
        compiled(**batch).last_hidden_state.sum().backward()
        assert model.char_cnn.char_embedding.weight.grad.any()
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path)},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
