"""``ScalarMix`` of bfloat16 layers (a bfloat16 biLM's, under ``hf_elmo.Elmo`` or a task head) is the exact
mix rounded once to bfloat16: it mixes in float32 (``at_least_float32``). Mixed in bfloat16, every product
and sum was rounded, and a mix near zero was off by thousands of bfloat16 steps there (0.019 at most)."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ScalarMix
from hf_elmo.scalar_mix import EPS

S, GAMMA = [0.3, -0.2, 0.5], 1.7


def _layers(dtype: torch.dtype) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return [(torch.rand(2, 50, 16, generator=generator) * 4 - 2).to(dtype) for _ in range(3)]


def _mix(layer_norm: str | None) -> ScalarMix:
    mix = ScalarMix(3, layer_norm=layer_norm, initial_scalar_parameters=S)
    with torch.no_grad():
        mix.gamma.fill_(GAMMA)
    return mix


def _exact(layers: list[torch.Tensor], layer_norm: str | None) -> torch.Tensor:
    values = [layer.double() for layer in layers]
    if layer_norm == "token":
        values = [
            (v - v.mean(-1, keepdim=True)) / torch.sqrt(v.var(-1, unbiased=False, keepdim=True) + EPS) for v in values
        ]
    weights = torch.softmax(torch.tensor(S, dtype=torch.float64), dim=0)
    return GAMMA * sum(w * v for w, v in zip(weights, values))


@pytest.mark.parametrize("layer_norm", [None, "token"])
def test_a_bfloat16_mix_is_the_exact_mix_rounded_once(layer_norm):
    layers = _layers(torch.bfloat16)
    with torch.no_grad():
        mixed = _mix(layer_norm)(layers)
    exact = _exact(layers, layer_norm)
    assert mixed.dtype == torch.bfloat16
    half_step = torch.exp2(torch.floor(torch.log2(exact.abs())) - 8)  # bfloat16: 7 bits after the point
    assert ((mixed.double() - exact).abs() <= half_step * 1.001 + 1e-6).all()


def test_a_float32_mix_is_as_before_bit_for_bit():
    layers = _layers(torch.float32)
    with torch.no_grad():
        mixed = _mix(None)(layers)
        weights = torch.softmax(torch.tensor(S), dim=0)
        expected = torch.tensor(GAMMA) * sum(w * layer for w, layer in zip(weights, layers))
    assert mixed.dtype == torch.float32
    torch.testing.assert_close(mixed, expected, rtol=0, atol=0)
