"""The task-specific scalar mix of biLM layers: ``gamma * sum_j softmax(s)_j * h_j``."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from .elmo_kernels import at_least_float32
from .messages import described, one_of

#: ``ScalarMix``'s ``layer_norm`` choices, and the variance floor of its normalisation (also
#: ``spacy_elmo.scalar_mix``'s: the two mixes compute the same).
LAYER_NORMS = (None, "batch", "token")
EPS = 1e-13


class ScalarMix(nn.Module):
    """A learned weighted sum of ``num_layers`` equally shaped tensors (Peters et al. 2018, eq. 1).

    Args:
        num_layers: number of layers mixed (L + 1 for an L-layer biLM).
        layer_norm: ``None``; ``"batch"`` normalises each layer over all unmasked elements of the
            batch before mixing; ``"token"`` normalises each token vector on its own. Given
            ``ElmoModel``'s ``hidden_states`` and ``attention_mask``, ``"batch"`` counts the real
            tokens only, while AllenNLP's ``do_layer_norm`` also counts each sentence's ``<S>``
            and ``</S>`` (it mixes before removing them), so the two differ. AllenNLP's values
            are this mix of the layers with the markers, cut afterwards:
            ``mix(model.encode(add_sentence_markers(ids, n), n + 2)[0], steps < n + 2)[:, 1:-1]``
            (``n`` the tokens per row, ``steps`` the positions 0..T+1; padding rows then masked).
        initial_scalar_parameters: initial ``s`` (default zeros, i.e. an average).
        trainable: ``False`` freezes ``s`` and ``gamma``; with ``[-9e10, 1, -9e10]`` that
            selects layer 1 alone.
        dropout: dropout on the mixed vector (the paper uses 0.5).
    """

    def __init__(
        self,
        num_layers: int,
        layer_norm: str | None = None,
        initial_scalar_parameters: Sequence[float] | None = None,
        trainable: bool = True,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if not one_of(layer_norm, LAYER_NORMS):
            raise ValueError(f"layer_norm must be one of {LAYER_NORMS}, got {described(layer_norm)}")
        if initial_scalar_parameters is None:
            initial_scalar_parameters = [0.0] * num_layers
        if len(initial_scalar_parameters) != num_layers:
            raise ValueError(
                f"initial_scalar_parameters has {len(initial_scalar_parameters)} values for {num_layers} layers"
            )
        self.num_layers = num_layers
        self.layer_norm = layer_norm
        self.scalar_parameters = nn.Parameter(
            torch.tensor([float(s) for s in initial_scalar_parameters]), requires_grad=trainable
        )
        self.gamma = nn.Parameter(torch.tensor(1.0), requires_grad=trainable)
        self.dropout = nn.Dropout(dropout)

    def layer_weights(self) -> torch.Tensor:
        """softmax(s): the normalised weight of every layer."""
        return torch.softmax(self.scalar_parameters, dim=0)

    def l2_penalty(self) -> torch.Tensor:
        """``sum(s ** 2)``; the paper adds ``0.001 *`` this to the task loss."""
        return (self.scalar_parameters**2).sum()

    def forward(self, layers: Sequence[torch.Tensor], mask: torch.Tensor | None = None) -> torch.Tensor:
        """Mix ``layers`` (each (..., D)); ``mask`` (...) marks real tokens for batch layer norm.

        The mix is in the layers' dtype, computed in float32 at least (``at_least_float32``) and
        rounded once: float16 or bfloat16 layers mixed in their own dtype rounded every product
        and sum (a bfloat16 mix near zero was off by thousands of its steps)."""
        if len(layers) != self.num_layers:
            raise ValueError(f"ScalarMix expects {self.num_layers} layers, got {len(layers)}")
        dtype = layers[0].dtype
        if self.layer_norm == "batch":
            if mask is None:
                raise ValueError("layer_norm='batch' needs the mask of real tokens")
            values = [self._batch_norm(layer, mask) for layer in layers]
        elif self.layer_norm == "token":
            values = [self._token_norm(layer) for layer in layers]
        else:
            values = [at_least_float32(layer) for layer in layers]
        weights = self.layer_weights()
        mixed = sum(w * value for w, value in zip(weights, values))
        return self.dropout((self.gamma * mixed).to(dtype))

    @staticmethod
    def _batch_norm(layer: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        values = at_least_float32(layer)
        broadcast = mask.unsqueeze(-1).to(values.dtype)
        count = (broadcast.sum() * values.shape[-1]).clamp(min=1)  # a batch of no real token: zeros
        masked = values * broadcast
        mean = masked.sum() / count
        variance = (((masked - mean) * broadcast) ** 2).sum() / count
        return _normalised(values - mean, variance)  # in float32 at least, as the mix

    @staticmethod
    def _token_norm(layer: torch.Tensor) -> torch.Tensor:
        values = at_least_float32(layer)
        mean = values.mean(dim=-1, keepdim=True)
        variance = values.var(dim=-1, unbiased=False, keepdim=True)
        return _normalised(values - mean, variance)


def _normalised(centred: torch.Tensor, variance: torch.Tensor) -> torch.Tensor:
    """``centred / sqrt(variance + EPS)``, but zeros with a zero gradient where ``variance`` is 0 (a
    padding position's zeros under ``"token"``): they are no output of the biLM, and ``EPS`` alone
    would scale their gradient by 1/sqrt(EPS), about 3e6. As ``spacy_elmo.scalar_mix._layer_norm``."""
    return torch.where(variance > 0, centred / torch.sqrt(variance + EPS), 0.0)
