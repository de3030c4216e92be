"""``mean_pool`` of float16 and bfloat16 vectors is their exact mean rounded once to that dtype: it
sums and counts in float32 (in the vectors' own dtype a float16 sum of a long sentence overflowed
to inf, and a bfloat16 one was off by more than a bfloat16 step)."""

from __future__ import annotations

import numpy as np
import torch

from hf_elmo import ElmoModel, mean_pool
from hf_elmo.embed import embed_sentences
from tests.hf_elmo.test_heads import tiny_config


def _within_half_a_step(got: torch.Tensor, exact: torch.Tensor, mantissa_bits: int) -> None:
    """``got`` is ``exact`` rounded to a float of ``mantissa_bits`` explicit bits (half a step, and a
    hair for the float32 division before the rounding)."""
    step = torch.exp2(torch.floor(torch.log2(exact.abs())) - mantissa_bits)
    assert torch.isfinite(got).all()
    assert ((got.double() - exact).abs() <= step / 2 * 1.001).all(), (got.double() - exact).abs().max()


def _vectors(tokens: int, dtype: torch.dtype) -> torch.Tensor:
    """(1, tokens, 4) values between 2 and 4, as ELMo's larger dimensions hold, in ``dtype``."""
    generator = torch.Generator().manual_seed(0)
    return (torch.rand(1, tokens, 4, generator=generator) * 2 + 2).to(dtype)


def test_a_float16_mean_over_30000_tokens_is_finite_and_the_rounded_exact_mean():
    """Was: inf (the float16 sum passed 65504)."""
    hidden = _vectors(30_000, torch.float16)
    pooled = mean_pool(hidden, torch.ones(1, 30_000, dtype=torch.bool))
    assert pooled.dtype == torch.float16
    _within_half_a_step(pooled, hidden.double().mean(dim=1), mantissa_bits=10)


def test_a_bfloat16_mean_over_1001_tokens_is_the_rounded_exact_mean():
    """Was: 0.019 off a mean of 3, more than a bfloat16 step there (0.016): the sum rounded to
    bfloat16, the count 1001 to 1000, and the quotient once more."""
    hidden = _vectors(1001, torch.bfloat16)
    mask = torch.ones(1, 1003, dtype=torch.bool)
    mask[0, 1001:] = False  # two padding positions, which must not count
    padded = torch.cat([hidden, torch.full((1, 2, 4), 100.0, dtype=torch.bfloat16)], dim=1)
    pooled = mean_pool(padded, mask)
    assert pooled.dtype == torch.bfloat16
    _within_half_a_step(pooled, hidden.double().mean(dim=1), mantissa_bits=7)


def test_float32_and_float64_means_keep_their_dtype_and_values():
    hidden = torch.randn(3, 2, 5, 4, dtype=torch.float64)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 0, 0, 0, 0]])
    expected = torch.stack([hidden[:, 0, :3].mean(dim=1), hidden[:, 1, :1].mean(dim=1)], dim=1)
    pooled = mean_pool(hidden, mask)
    assert pooled.dtype == torch.float64
    torch.testing.assert_close(pooled, expected, rtol=0, atol=1e-15)
    assert mean_pool(hidden.float(), mask).dtype == torch.float32


def test_embed_sentences_pooled_in_bfloat16_is_the_rounded_mean_of_its_token_vectors():
    """``elmo embed --pool mean --dtype bfloat16``: the sentence vector is the mean of the bfloat16
    token vectors that ``--pool`` left out would store, rounded once (was: up to a step off)."""
    torch.manual_seed(0)
    model = ElmoModel(tiny_config()).eval()
    sentence = [f"w{i % 13}" for i in range(300)]  # a count above 256, which bfloat16 does not hold
    (tokens,) = embed_sentences(model, [sentence], layers="top", dtype="bfloat16")
    (pooled,) = embed_sentences(model, [sentence], layers="top", dtype="bfloat16", pool="mean")
    assert pooled.dtype == np.float32 and pooled.shape == tokens.shape[1:]
    _within_half_a_step(torch.from_numpy(pooled), torch.from_numpy(tokens).double().mean(dim=0), mantissa_bits=7)
