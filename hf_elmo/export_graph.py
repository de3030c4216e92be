"""ELMo's inference computation in a form that ``torch.export`` and the ONNX exporter can trace.

``ElmoModel.forward`` has data-dependent control flow (length checks, per-length grouping, the
token cache, a Python loop over the steps of the longest sentence); none of it survives tracing
for a dynamic batch and length. ``ElmoInferenceGraph`` computes the same function, stateless from
the model's initial state (zeros or the warm state), with no branch on values:

    char_ids (B, T, W) int64, left-aligned, padding tokens all zero
      -> mask (B, T) = any char id > 0; lengths (B,)
      -> <S> first and </S> after each row's tokens: (B, S = T+2, W)
      -> char CNN on the real slots (a data-dependent count, gathered and scattered back; the
         convolutions over the char slots up to the batch's longest token), zero on padding: (B, S, P)
      -> ``masked_bilm``: per biLM layer one ``scan`` over the S steps, both directions at once
         (axis 0 of the weights): the backward direction reads each row's real steps reversed
         within its length, so padding comes last in both; outputs are zero on padding
      -> layers (B, L+1, T, 2P) (markers removed, padding zero) and the mask.

The recurrence is a ``torch._higher_order_ops.scan`` (an ONNX ``Scan`` after export), not a loop
unrolled for one length. The module copies the weights of the ``ElmoModel`` it is built from.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, TypeVar

import torch
from torch import nn
from torch._higher_order_ops.scan import scan

from .char_ids import PADDING_ID, add_sentence_markers, begin_of_sentence_ids, end_of_sentence_ids
from .elmo_kernels import stacked_weights
from .masked_bilm import Step, masked_bilm
from .modeling_elmo import ElmoModel, check_runs_as_built

#: Per biLM layer, the buffers ``{name}_{index}`` holding ``stacked_weights``' four tensors, in its order.
WEIGHT_BUFFERS = ("w_input", "w_state", "w_proj", "bias")


class ElmoInferenceGraph(nn.Module):
    """``ElmoModel``'s stateless inference as one traceable function: char ids in, layers and mask out.

    ``forward(char_ids)`` takes (B, T, W) int64 char ids (W = ``max_characters_per_token``) and
    returns ``layers`` (B, L+1, T, 2P) (layer 0 is the token layer doubled, as in
    ``ElmoModel``'s ``hidden_states``; zero on padding) and ``mask`` (B, T) bool. Input is not
    checked here (a traced graph cannot raise on values): see ``hf_elmo.export`` for the
    wrappers that validate before running it.
    """

    bos: torch.Tensor  # (W,) the char ids of <S>
    eos: torch.Tensor  # (W,) the char ids of </S>
    warm_h: torch.Tensor  # (2, L, P)
    warm_c: torch.Tensor  # (2, L, C)

    def __init__(self, model: ElmoModel) -> None:
        super().__init__()
        reads = "the exported graph holds a copy of the char CNN's and the biLM's weights alone"
        remedy = "merge them into the weights first (PEFT's merge_and_unload(), say), or export the model without them"
        check_runs_as_built(model, reads, ["char_cnn", "bilm"], remedy)
        config = model.config
        cnn = model.char_cnn
        self.char_embedding = nn.Embedding.from_pretrained(cnn.char_embedding.weight.detach().clone(), freeze=True)
        self.convolutions = nn.ModuleList(_copy(conv) for conv in cnn.convolutions)
        self.highways = nn.ModuleList(_copy(highway) for highway in cnn.highways)
        self.projection = _copy(cnn.projection)
        self.widest_filter = max(width for width, _ in config.filters)
        self.relu = config.activation != "tanh"
        self.cell_clip: float | None = config.cell_clip
        self.proj_clip: float | None = config.proj_clip
        self.use_skip_connections = config.use_skip_connections
        self.n_layers = config.n_layers
        width = config.max_characters_per_token
        self.register_buffer("bos", torch.tensor(begin_of_sentence_ids(width)))
        self.register_buffer("eos", torch.tensor(end_of_sentence_ids(width)))
        self.register_buffer("warm_h", model.warm_h.detach().clone())  # (2, L, P)
        self.register_buffer("warm_c", model.warm_c.detach().clone())  # (2, L, C)
        with torch.no_grad():
            for index in range(config.n_layers):
                # Both directions on axis 0, gate blocks i, f, o, j, the forget bias folded in.
                weights = stacked_weights(model.bilm.layer_pair(index))
                for name, weight in zip(WEIGHT_BUFFERS, weights):
                    self.register_buffer(f"{name}_{index}", weight.detach().contiguous().clone())

    def forward(self, char_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch, steps, width = char_ids.shape
        mask = (char_ids > 0).any(dim=-1)  # (B, T)
        lengths = mask.sum(dim=1)  # (B,)
        chars = add_sentence_markers(char_ids, lengths, self.bos, self.eos)  # (B, S, W)
        positions = torch.arange(steps + 2, device=char_ids.device).unsqueeze(0)  # (1, S)
        real = positions < (lengths + 2).unsqueeze(1)  # (B, S)

        # The char CNN on the real slots only (N of the B * S), scattered back; padding stays zero.
        slots = real.reshape(-1).nonzero().squeeze(1)  # (N,)
        values = self._char_cnn(chars.reshape(-1, width).index_select(0, slots))  # (N, P)
        tokens = values.new_zeros(batch * (steps + 2), values.shape[1]).index_copy(0, slots, values)
        tokens = tokens.reshape(batch, steps + 2, -1)  # (B, S, P)
        weights = [tuple(getattr(self, f"{name}_{index}") for name in WEIGHT_BUFFERS) for index in range(self.n_layers)]
        lstm_layers = masked_bilm(
            weights,
            tokens,
            real,
            self.warm_h,
            self.warm_c,
            self.cell_clip,
            self.proj_clip,
            self.use_skip_connections,
            loop=unaliased_scan,
        )
        layers = [torch.cat([tokens, tokens], dim=-1), *lstm_layers]
        keep = mask.unsqueeze(-1).to(tokens.dtype)
        stacked = torch.stack([layer[:, 1 : steps + 1] * keep for layer in layers], dim=1)  # (B, L+1, T, 2P)
        return stacked, mask

    def _char_cnn(self, char_ids: torch.Tensor) -> torch.Tensor:
        """(N, W) char ids -> (N, P): embedding, convolutions max-pooled, highways, projection.

        The convolutions run over the first ``K = min(W, span + widest filter)`` slots only, span
        the last slot that holds a character in any of the N tokens: the windows cut off start on
        padding characters alone, and each has the value of a kept window (one that starts at the
        span or later also sees padding alone), so the max over positions is unchanged.
        """
        width = char_ids.shape[1]
        widest = self.widest_filter
        positions = torch.arange(1, width + 1, device=char_ids.device)
        is_char = (char_ids > 0) & (char_ids != PADDING_ID)
        span = (is_char * positions).amax(dim=(0, 1))
        kept = torch.clamp(span + widest, max=width).item()
        torch._check(kept >= widest)
        torch._check(kept <= width)
        chars = self.char_embedding(char_ids[:, :kept]).transpose(1, 2)  # (N, D, K)
        pooled = torch.cat([conv(chars).amax(dim=-1) for conv in self.convolutions], dim=-1)  # (N, F)
        x = torch.relu(pooled) if self.relu else torch.tanh(pooled)
        for highway in self.highways:
            x = highway(x)
        return self.projection(x)


ModuleT = TypeVar("ModuleT", bound=nn.Module)


def _copy(module: ModuleT) -> ModuleT:
    """A frozen copy of ``module`` (the graph holds its own weights)."""
    clone = copy.deepcopy(module)
    clone.requires_grad_(False)
    return clone


def unaliased_scan(step: Step, init: Any, xs: Sequence[torch.Tensor]) -> tuple[Any, torch.Tensor]:
    """torch's ``scan`` over ``masked_bilm``'s steps, whose output is also their new state: a
    scan's step may not return one tensor twice, so its output is a copy (an Identity in ONNX)."""

    def unaliased(carry: Any, step_inputs: Any) -> tuple[Any, torch.Tensor]:
        carry, out = step(carry, step_inputs)
        return carry, out.clone()

    return scan(unaliased, init, xs)
