"""Random sentences and a random biLM whose every path matters (clipping that binds, a warm state),
shared by the tests of the static-shape paths (export graph, CUDA graphs) and of saving over a save."""

from __future__ import annotations

import random
from collections.abc import Sequence

import torch

from hf_elmo import ElmoConfig, ElmoModel

ALPHABET = "abcdefghijklmnopqrstuvwxyzÄÖÜßéñ日本語🙂,.-"


def random_sentences(
    lengths: Sequence[int], seed: int = 0, token_chars: Sequence[int] = (1, 2, 5, 9, 30, 60)
) -> list[list[str]]:
    """Sentences of the given token counts; each token of a length drawn from ``token_chars``, some non-ASCII."""
    rng = random.Random(seed)
    return [["".join(rng.choice(ALPHABET) for _ in range(rng.choice(token_chars))) for _ in range(n)] for n in lengths]


def clipped_random_model() -> ElmoModel:
    """A tiny random biLM with non-zero biases, cell and projection clipping that bind, and a warm initial state."""
    torch.manual_seed(0)
    config = ElmoConfig(
        filters=[[1, 4], [2, 8], [3, 8]],
        n_highway=2,
        char_embedding_dim=4,
        lstm_dim=24,
        projection_dim=8,
        n_layers=2,
        cell_clip=1.0,
        proj_clip=1.5,
    )
    model = ElmoModel(config).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.3)
    model.warm_up(random_sentences([5, 9, 3], seed=1))
    assert model.warm_h.abs().min() > 0  # the static paths must start from the warm state
    return model


def other_model() -> ElmoModel:
    """A model (made anew) of other weights and another ``cell_clip`` than ``clipped_random_model``'s."""
    model = clipped_random_model()
    model.config.cell_clip = 2.0
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(1.0)
    return model
