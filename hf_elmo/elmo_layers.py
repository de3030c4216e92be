"""The layers ``ElmoModel`` is built from: the char CNN (``ElmoCharCNN``, its ``ElmoHighway``
layers) and the biLM (``ElmoBiLm``, of ``ElmoLstmProjectionLayer``), each with its plain path and
the dispatch to the fast and fused ones, whose kernels live in ``elmo_kernels.py``.

Shapes (N tokens, W char ids a token, B sentences, S steps with the sentence markers; P projection,
C cell, L layers):

    char ids (N, W) -> ElmoCharCNN -> token vectors (N, P)
    token layer (B, S, P) -> ElmoBiLm -> L tensors (B, S, 2P), final ElmoState h (2, L, B, P), c (2, L, B, C)

``runs_as_built`` says whether a part is still the module built here (else the plain path runs);
``CheckpointedParts`` runs parts under activation checkpointing. This file imports only torch and
its siblings (the configuration, the char ids, ``elmo_cache``, ``elmo_kernels``), so that a saved
model folder carries it with ``modeling_elmo.py`` for ``trust_remote_code=True``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import torch
from torch import nn

from .char_ids import N_CHAR_IDS
from .configuration_elmo import ElmoConfig
from .elmo_cache import DerivedWeights
from .elmo_kernels import (
    FORGET_BIAS,
    all_filters_as_one,
    bidirectional_lstm_layer,
    lstm_dtype,
    pool_real_span,
    stacked_weights,
    token_chunks,
    torch_lstm_weights,
)

_Result = TypeVar("_Result")
# cuDNN copies the fused path's LSTM weights into one buffer at every call, since they are derived
# from the parameters (gate order, forget bias) rather than kept flat: a copy of a few MB, about
# which torch warns once a process, naming a remedy (``flatten_parameters()``) this module's users
# cannot take. Only the warnings raised from this module are silenced.
warnings.filterwarnings(
    "ignore",
    message="RNN module weights are not part of single contiguous chunk of memory",
    category=UserWarning,
    module=r"(.*\.)?elmo_layers\Z",
)


class CheckpointedParts(nn.Module):
    """A module that can run parts of itself under activation checkpointing while it trains.

    transformers' ``activation_checkpointing_enable`` (``gradient_checkpointing_enable``,
    ``Trainer``'s ``activation_checkpointing``) sets ``gradient_checkpointing`` and
    ``_gradient_checkpointing_func`` (``torch.utils.checkpoint``) on every module that has the
    flag; ``checkpointed`` runs a part through it. The parts: the char CNN's chunks of tokens, each
    biLM layer and a task head's BiLSTM (see ``ElmoPreTrainedModel.activation_checkpointing_enable``).
    """

    gradient_checkpointing = False
    _gradient_checkpointing_func: Callable[..., Any]

    def checkpointed(self, function: Callable[..., _Result], *args: Any) -> _Result:
        """``function(*args)``; through ``_gradient_checkpointing_func`` when checkpointing is on,
        the module trains and gradients are recorded: what ``function`` computes is then not kept
        for the backward pass but computed again there, from ``args`` (dropout draws the same masks:
        the RNG state is restored). ``function`` must take everything it reads that changes
        between calls (a loop's layer, its state) as ``args``, not from an enclosing scope."""
        if self.gradient_checkpointing and self.training and torch.is_grad_enabled():
            return self._gradient_checkpointing_func(function, *args)
        return function(*args)


class ElmoHighway(nn.Module):
    """One highway layer: ``y = t * relu(W_T x) + (1 - t) * x`` with gate ``t = sigmoid(W_G x)``."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.transform = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(self.gate(x))
        return gate * torch.relu(self.transform(x)) + (1.0 - gate) * x


class ElmoCharCNN(CheckpointedParts):
    """Token representation from character ids: (N, W) ids -> (N, P), W = 50 slots.

    Char embedding -> one convolution per filter width, max-pooled over positions, then the
    activation -> highway layers -> projection.

    The fast path (``config.bilm_implementation == "fast"``) is exact: a window that starts
    after a token's last character sees only padding characters, so its value is the same
    per-filter constant for every token, and one such window stands for all. Tokens are
    grouped by their character span and each group is convolved over its span (plus one
    all-padding window), all filters in one GEMM over windows of the widest filter.
    """

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__()
        self.config = config
        self.char_embedding = nn.Embedding(N_CHAR_IDS, config.char_embedding_dim, padding_idx=0)
        self.convolutions = nn.ModuleList(
            nn.Conv1d(config.char_embedding_dim, channels, kernel_size=width) for width, channels in config.filters
        )
        self.activation = torch.tanh if config.activation == "tanh" else torch.relu
        self.highways = nn.ModuleList(ElmoHighway(config.n_filters) for _ in range(config.n_highway))
        self.projection = nn.Linear(config.n_filters, config.projection_dim)
        self._derived = DerivedWeights()

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        """(N, W) char ids -> (N, P) token vectors; under activation checkpointing the plain path
        is one part, the fast path one part a chunk."""
        if self.config.bilm_implementation == "plain" or not runs_as_built(self):
            return self.checkpointed(self._plain_token_layer, char_ids)
        # Chunks bound the memory of the convolutions (N tokens x F channels x positions).
        return torch.cat([self.checkpointed(self._fast_token_layer, chunk) for chunk in token_chunks(char_ids)])

    def _plain_token_layer(self, char_ids: torch.Tensor) -> torch.Tensor:
        return self._from_pooled(self._pool_full_width(char_ids))

    def _fast_token_layer(self, char_ids: torch.Tensor) -> torch.Tensor:
        return self._from_pooled(self._pool_real_span(char_ids))

    def _from_pooled(self, pooled: torch.Tensor) -> torch.Tensor:
        """(N, F) max-pooled convolutions -> activation -> highways -> projection (N, P)."""
        x = self.activation(pooled)
        for highway in self.highways:
            x = highway(x)
        return self.projection(x)

    def _pool_full_width(self, char_ids: torch.Tensor) -> torch.Tensor:
        chars = self.char_embedding(char_ids).transpose(1, 2)  # (N, D, W)
        return torch.cat([conv(chars).max(dim=-1).values for conv in self.convolutions], dim=-1)

    def _pool_real_span(self, char_ids: torch.Tensor) -> torch.Tensor:
        filters = self._derived.get(
            "filters",
            list(self.convolutions.parameters()),
            lambda: all_filters_as_one(cast(Sequence[nn.Conv1d], self.convolutions)),
        )
        return pool_real_span(char_ids, self.char_embedding, *filters)


def runs_as_built(module: nn.Module) -> bool:
    """Whether ``module`` and all its parts are still the modules ``ElmoModel`` builds: their
    own classes (not replaced by quantised, LoRA or parametrized ones), no hooks (pruning and
    the old weight norm are pre-hooks) and no ``forward`` patched on an instance.

    The fast and fused paths read weights instead of calling every part, which is exact only
    then; otherwise the plain path runs, which calls every part (and the token cache is not
    used), so whatever was added takes effect and the hooks fire.
    """
    # walked by hand: faster than the same checks over module.modules(), whose generator keeps a set of the
    # modules it has seen and yields through every level of the tree; and this runs every call
    parts = [module]
    while parts:
        part = parts.pop()
        if (
            type(part) not in _BUILT_CLASSES
            or part._forward_pre_hooks
            or part._forward_hooks
            or part._backward_pre_hooks
            or part._backward_hooks
            or "forward" in part.__dict__
        ):
            return False
        parts.extend(child for child in part._modules.values() if child is not None)
    return True


class ElmoLstmProjectionLayer(nn.Module):
    """One direction of one biLM layer: an LSTM cell with a projection, TF semantics.

    Weights map to the original ``W_0`` (rows [input; h]) as ``input_linear`` and
    ``state_linear`` (gate blocks i, j, f, o; ``B`` is ``input_linear``'s bias) and ``W_P_0``
    as ``projection``.
    """

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__()
        p, c = config.projection_dim, config.lstm_dim
        self.input_linear = nn.Linear(p, 4 * c)
        self.state_linear = nn.Linear(p, 4 * c, bias=False)
        self.projection = nn.Linear(c, p, bias=False)
        self.cell_clip = config.cell_clip
        self.proj_clip = config.proj_clip

    def forward(
        self, inputs: torch.Tensor, lengths: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """Run over left-aligned ``inputs`` (B, S, P) with ``lengths`` (B,) from ``state``.

        Returns the outputs (B, S, P), zero beyond each row's length, and the state (h (B, P),
        c (B, C)) at each row's last real step.
        """
        h, c = state
        gates_x = self.input_linear(inputs)  # (B, S, 4C): one GEMM for all steps
        outputs = []
        for t in range(inputs.shape[1]):
            i, j, f, o = (gates_x[:, t] + self.state_linear(h)).chunk(4, dim=-1)
            c_new = torch.sigmoid(f + FORGET_BIAS) * c + torch.sigmoid(i) * torch.tanh(j)
            if self.cell_clip is not None:
                c_new = c_new.clamp(-self.cell_clip, self.cell_clip)
            h_new = self.projection(torch.sigmoid(o) * torch.tanh(c_new))
            if self.proj_clip is not None:
                h_new = h_new.clamp(-self.proj_clip, self.proj_clip)
            active = (lengths > t).unsqueeze(-1)
            h = torch.where(active, h_new, h)
            c = torch.where(active, c_new, c)
            outputs.append(h_new * active)
        return torch.stack(outputs, dim=1), (h, c)


def _reverse_within_lengths(lengths: torch.Tensor, steps: int) -> torch.Tensor:
    """Index (B, S) that reverses each row's first ``lengths[b]`` steps and keeps the rest."""
    positions = torch.arange(steps, device=lengths.device).unsqueeze(0)
    reversed_positions = lengths.unsqueeze(1) - 1 - positions
    return torch.where(positions < lengths.unsqueeze(1), reversed_positions, positions)


class ElmoBiLm(CheckpointedParts):
    """L forward and L backward LSTM-with-projection layers over the token layer.

    The fast path (``config.bilm_implementation == "fast"``) runs both directions as one
    batched recurrence: rows sorted by length, so the rows still running at step t are a
    prefix that shrinks as sentences end (no work on padding); the input half of the gates
    is one GEMM per block of steps (bounded memory for any length). The ``"fused"`` path
    (clip-free configs) hands each direction's layer to torch's LSTM kernel (cuDNN on CUDA).
    Under activation checkpointing each layer (both directions in the fast path, each direction
    in the others), dropout of its input included, is one part: only its input, output and final
    state are kept for the backward pass.
    """

    def __init__(self, config: ElmoConfig) -> None:
        super().__init__()
        self.config = config
        self.forward_layers = nn.ModuleList(ElmoLstmProjectionLayer(config) for _ in range(config.n_layers))
        self.backward_layers = nn.ModuleList(ElmoLstmProjectionLayer(config) for _ in range(config.n_layers))
        self.use_skip_connections = config.use_skip_connections
        self.dropout = nn.Dropout(config.dropout)
        self._derived = DerivedWeights()  # _stacked_weights per layer: a second copy of the LSTM weights

    def layer_pair(self, index: int) -> tuple[ElmoLstmProjectionLayer, ElmoLstmProjectionLayer]:
        """Layer ``index`` of the forward and of the backward LSTM (what ``stacked_weights`` takes)."""
        return (
            cast(ElmoLstmProjectionLayer, self.forward_layers[index]),
            cast(ElmoLstmProjectionLayer, self.backward_layers[index]),
        )

    def _stacked_weights(self, index: int) -> tuple[torch.Tensor, ...]:
        layers = self.layer_pair(index)
        params = [p for layer in layers for p in layer.parameters()]
        return self._derived.get(f"layer-{index}", params, lambda: stacked_weights(layers))

    def forward(
        self, tokens: torch.Tensor, lengths: torch.Tensor, initial_state: ElmoState
    ) -> tuple[list[torch.Tensor], ElmoState]:
        """tokens (B, S, P) with sentence markers; returns L tensors (B, S, 2P) and final states."""
        if self.config.bilm_implementation == "plain" or not runs_as_built(self):
            return self._forward_plain(tokens, lengths, initial_state)
        if self.config.bilm_implementation == "fused":
            return self._forward_torch_lstm(tokens, lengths, initial_state)
        return self._forward_fast(tokens, lengths, initial_state)

    def _forward_plain(
        self, tokens: torch.Tensor, lengths: torch.Tensor, initial_state: ElmoState
    ) -> tuple[list[torch.Tensor], ElmoState]:
        order = _reverse_within_lengths(lengths, tokens.shape[1]).unsqueeze(-1)
        directions = []
        final_h, final_c = [], []
        for d, layers in enumerate((self.forward_layers, self.backward_layers)):
            x = tokens if d == 0 else tokens.gather(1, order.expand_as(tokens))
            outputs, hs, cs = [], [], []
            for layer_index, layer in enumerate(layers):
                state = (initial_state.h[d, layer_index], initial_state.c[d, layer_index])
                out, (h, c) = self.checkpointed(self._plain_layer, layer, x, lengths, *state)
                if layer_index > 0 and self.use_skip_connections:
                    out = out + x
                outputs.append(out if d == 0 else out.gather(1, order.expand_as(out)))
                hs.append(h)
                cs.append(c)
                x = out
            directions.append(outputs)
            final_h.append(torch.stack(hs))
            final_c.append(torch.stack(cs))
        layers_out = [torch.cat([f, b], dim=-1) for f, b in zip(*directions)]
        return layers_out, ElmoState(torch.stack(final_h), torch.stack(final_c))

    def _plain_layer(
        self, layer: ElmoLstmProjectionLayer, x: torch.Tensor, lengths: torch.Tensor, h: torch.Tensor, c: torch.Tensor
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        return layer(self.dropout(x), lengths, (h, c))

    def _forward_fast(
        self, tokens: torch.Tensor, lengths: torch.Tensor, initial_state: ElmoState
    ) -> tuple[list[torch.Tensor], ElmoState]:
        steps = tokens.shape[1]
        order = torch.argsort(lengths, descending=True, stable=True)
        restore = torch.argsort(order)
        sorted_lengths = lengths[order]
        reverse = _reverse_within_lengths(sorted_lengths, steps).unsqueeze(-1).expand(-1, -1, tokens.shape[2])
        forward_tokens = tokens[order]
        x = torch.stack([forward_tokens, forward_tokens.gather(1, reverse)])  # (2, B, S, P): [forward; backward]
        # Rows still running at each step (a shrinking prefix of the sorted rows).
        running = (
            (sorted_lengths.unsqueeze(0) > torch.arange(steps, device=lengths.device).unsqueeze(1)).sum(1).tolist()
        )
        outputs, final_h, final_c = [], [], []
        for index in range(len(self.forward_layers)):
            state = (initial_state.h[:, index][:, order], initial_state.c[:, index][:, order])
            out, (h, c) = self.checkpointed(self._fast_layer, index, x, running, *state)
            if index > 0 and self.use_skip_connections:
                out = out + x
            outputs.append(out)
            final_h.append(h[:, restore])
            final_c.append(c[:, restore])
            x = out
        layers_out = [torch.cat([out[0], out[1].gather(1, reverse)], dim=-1)[restore] for out in outputs]
        return layers_out, ElmoState(torch.stack(final_h, dim=1), torch.stack(final_c, dim=1))

    def _fast_layer(
        self, index: int, x: torch.Tensor, running: list[int], h: torch.Tensor, c: torch.Tensor
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """Layer ``index``, both directions: ``x`` (2, B, S, P) -> (2, B, S, P) and the final state."""
        weights = self._stacked_weights(index)
        return bidirectional_lstm_layer(
            weights, self.dropout(x), running, (h, c), self.config.cell_clip, self.config.proj_clip
        )

    def _forward_torch_lstm(
        self, tokens: torch.Tensor, lengths: torch.Tensor, initial_state: ElmoState
    ) -> tuple[list[torch.Tensor], ElmoState]:
        """The ``"fused"`` path: every direction and layer is one call of torch's LSTM kernel.

        Both directions are packed once (the backward one reversed within each row's length)
        and stay packed through the layers: dropout, the kernel and the residual all act on
        the packed (N, P) data, N the real steps of the batch, so padding costs nothing and
        the final states are those after each row's last real step. The LSTM runs in the
        autocast dtype when autocast is on for the device and its kernel supports it (weights,
        inputs and states cast to it, autocast off around the kernel; see ``lstm_dtype``),
        else in the dtype of ``tokens``.
        """
        unsupported = self.config.fused_lstm_unsupported()
        if unsupported:
            raise ValueError(unsupported)
        host_lengths = lengths.cpu()  # packing needs them on the host
        if int(host_lengths.min()) < 1:
            raise ValueError("bilm_implementation='fused' needs at least one step in every row")
        steps = tokens.shape[1]
        reverse = _reverse_within_lengths(lengths, steps).unsqueeze(-1).expand_as(tokens)
        pack = nn.utils.rnn.pack_padded_sequence
        packed = [
            pack(x, host_lengths, batch_first=True, enforce_sorted=False) for x in (tokens, tokens.gather(1, reverse))
        ]
        batch_sizes, sorted_rows, unsorted_rows = (
            packed[0].batch_sizes,
            packed[0].sorted_indices,
            packed[0].unsorted_indices,
        )
        assert sorted_rows is not None and unsorted_rows is not None  # set by enforce_sorted=False
        dtype = lstm_dtype(tokens)
        xs = [p.data.to(dtype) for p in packed]  # (N, P) per direction, time-major over rows sorted by length
        outputs: list[list[torch.Tensor]] = [[], []]
        final_h: list[list[torch.Tensor]] = [[], []]
        final_c: list[list[torch.Tensor]] = [[], []]
        for index in range(len(self.forward_layers)):
            for d in range(2):  # forward, backward
                h0 = initial_state.h[d, index].index_select(0, sorted_rows).unsqueeze(0).to(xs[d].dtype)
                c0 = initial_state.c[d, index].index_select(0, sorted_rows).unsqueeze(0).to(xs[d].dtype)
                out, h, c = self.checkpointed(self._fused_layer, d, index, xs[d], batch_sizes, h0, c0)
                if index > 0 and self.use_skip_connections:
                    out = out + xs[d]
                outputs[d].append(out)
                final_h[d].append(h[0].index_select(0, unsorted_rows))
                final_c[d].append(c[0].index_select(0, unsorted_rows))
                xs[d] = out

        def unpack(data: torch.Tensor) -> torch.Tensor:  # (N, P) -> (B, S, P), zero beyond each length
            sequence = nn.utils.rnn.PackedSequence(data, batch_sizes, sorted_rows, unsorted_rows)
            return nn.utils.rnn.pad_packed_sequence(sequence, batch_first=True, total_length=steps)[0]

        layers_out = [
            torch.cat([unpack(f), unpack(b).gather(1, reverse)], dim=-1) for f, b in zip(outputs[0], outputs[1])
        ]
        h = torch.stack([torch.stack(hs) for hs in final_h])
        c = torch.stack([torch.stack(cs) for cs in final_c])
        return layers_out, ElmoState(h, c)

    def _fused_layer(
        self,
        direction: int,
        index: int,
        x: torch.Tensor,
        batch_sizes: torch.Tensor,
        h0: torch.Tensor,
        c0: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One direction of layer ``index`` in torch's LSTM kernel, in ``x``'s dtype: packed ``x``
        (N, P) -> (N, P) and the final h, c (1, B, P), (1, B, C)."""
        weights = self._torch_lstm_weights(direction, index, x.dtype)
        with torch.autocast(x.device.type, enabled=False):
            out, h, c = torch._VF.lstm(
                self.dropout(x), batch_sizes, (h0, c0), weights, True, 1, 0.0, self.training, False
            )
        return out, h, c

    def _torch_lstm_weights(self, direction: int, index: int, dtype: torch.dtype) -> list[torch.Tensor]:
        layer = self.layer_pair(index)[direction]
        return self._derived.get(
            f"torch-lstm-{direction}-{index}-{dtype}",
            list(layer.parameters()),
            lambda: [w.to(dtype) for w in torch_lstm_weights(layer)],
        )


#: The classes ``ElmoModel``'s char CNN and biLM are built from (see ``runs_as_built``).
_BUILT_CLASSES = frozenset(
    {
        ElmoCharCNN,
        ElmoHighway,
        ElmoBiLm,
        ElmoLstmProjectionLayer,
        nn.Embedding,
        nn.Conv1d,
        nn.Linear,
        nn.ModuleList,
        nn.Dropout,
    }
)


@dataclass
class ElmoState:
    """LSTM state of the biLM: ``h`` (2, L, B, P) and ``c`` (2, L, B, C); axis 0 is the direction."""

    h: torch.Tensor
    c: torch.Tensor
