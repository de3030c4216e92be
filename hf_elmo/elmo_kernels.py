"""The fast and fused paths of the ELMo biLM: kernels, the weight layouts they need, and their
tuning constants. Each computes exactly what the plain path in ``elmo_layers.py`` does
(``tests/hf_elmo/test_fast_path.py``, ``tests/hf_elmo/test_fused_lstm.py``).

    char CNN (fast):  token_chunks -> pool_real_span, all filters in one GEMM over each token's
                      real characters (all_filters_as_one, span_groups)
    biLM (fast):      bidirectional_lstm_layer, both directions in one recurrence over
                      length-sorted rows (stacked_weights)
    biLM (fused):     torch's LSTM kernel (cuDNN on CUDA) (torch_lstm_weights, lstm_dtype)

The original LSTM keeps its gates in the order i, j, f, o and adds ``FORGET_BIAS`` to the forget
gate (not stored in the weights); the layouts here reorder the gates and fold that bias in.

This file imports only torch and its sibling tokenizer; a saved model folder carries it with
``modeling_elmo.py`` for ``trust_remote_code=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import torch
from torch import nn

from .char_ids import PADDING_ID

#: bilm-tf adds this to the forget gate's pre-activation; the weight files do not hold it.
FORGET_BIAS = 1.0


def at_least_float32(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor`` in float32, or in its own dtype where that is wider (float64): the dtype that sums,
    norms and losses are taken in. In float16 a sum overflows past 65504 and a small variance rounds
    to 0; bfloat16 rounds each partial result to 8 bits; float64 would lose its precision in float32."""
    return tensor.to(torch.promote_types(tensor.dtype, torch.float32))


#: Tokens per char-CNN call in the fast path (bounds the highway layers' memory).
TOKEN_CHUNK = 2048
#: Token windows per convolution GEMM in the fast path (bounds its (rows, F) output).
CONV_ROWS = 8192
#: Merging two span groups wastes (tokens x extra slots); below this many slots it beats a call.
GROUP_MERGE_SLOTS = 96


def span_groups(sorted_spans: list[int]) -> list[tuple[int, int]]:
    """Split ascending character spans into [start, end) groups convolved together.

    A group grows while the padding it adds (tokens so far x the span increase) costs less
    than a separate convolution call would.
    """
    if not sorted_spans:
        return []
    groups: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(sorted_spans)):
        if (index - start) * (sorted_spans[index] - sorted_spans[index - 1]) > GROUP_MERGE_SLOTS:
            groups.append((start, index))
            start = index
    groups.append((start, len(sorted_spans)))
    return groups


def token_chunks(char_ids: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """(N, W) char ids in chunks of at most ``TOKEN_CHUNK`` tokens: the fast char CNN runs chunk by
    chunk, which bounds the memory of its convolutions (N tokens x F channels x positions)."""
    return char_ids.split(TOKEN_CHUNK)


def pool_real_span(
    char_ids: torch.Tensor, char_embedding: nn.Embedding, kernel: torch.Tensor, bias: torch.Tensor, widths: torch.Tensor
) -> torch.Tensor:
    """The char CNN's max-pooled convolutions (N, F) of (N, W) char ids, convolving only each
    token's real characters (see ``ElmoCharCNN``); ``kernel``, ``bias``, ``widths`` are the
    convolutions as one (``all_filters_as_one``)."""
    n_tokens, width = char_ids.shape
    if n_tokens == 0:
        return bias.new_zeros(0, bias.shape[0])
    positions = torch.arange(1, width + 1, device=char_ids.device)
    span = ((char_ids != PADDING_ID) * positions).amax(dim=1)  # (N,) slots up to the last character
    order = torch.argsort(span)
    sorted_span = span[order]
    widest = kernel.shape[0] // char_embedding.embedding_dim
    pooled = []
    for start, end in span_groups(sorted_span.tolist()):
        # Windows at 0 .. span-1 touch characters; the one at ``span`` stands for all-padding ones.
        slots = min(width, int(sorted_span[end - 1]) + 1)
        # Window p of a filter of width w exists in the full-width convolution if p <= width - w.
        exists = torch.arange(slots, device=char_ids.device).unsqueeze(1) <= width - widths  # (slots, F)
        for rows in order[start:end].split(max(1, CONV_ROWS // slots)):
            ids = nn.functional.pad(char_ids[rows, :slots], (0, widest - 1), value=PADDING_ID)
            windows = char_embedding(ids).unfold(1, widest, 1)  # (n, slots, D, widest)
            windows = windows.transpose(2, 3).reshape(len(rows) * slots, -1)  # (n * slots, widest * D)
            values = torch.addmm(bias, windows, kernel).view(len(rows), slots, -1)  # (n, slots, F)
            pooled.append(values.masked_fill(~exists, float("-inf")).amax(dim=1))
    return torch.cat(pooled).index_select(0, torch.argsort(order))


class LstmWithProjection(Protocol):
    """What the kernels read of an ``ElmoLstmProjectionLayer``: its three linear maps."""

    input_linear: nn.Linear
    state_linear: nn.Linear
    projection: nn.Linear


def all_filters_as_one(convolutions: Sequence[nn.Conv1d]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The convolutions as one matrix over windows of the widest filter's width.

    Returns the kernel (widest * D, F) (rows offset-major; zero where a narrower filter's
    window has ended), the bias (F,) and every channel's filter width (F,).
    """
    widest = max(conv.kernel_size[0] for conv in convolutions)
    kernels = [
        nn.functional.pad(conv.weight, (0, widest - conv.kernel_size[0])).permute(2, 1, 0)  # (widest, D, C_w)
        for conv in convolutions
    ]
    kernel = torch.cat(kernels, dim=-1).flatten(0, 1)
    bias = torch.cat([conv.bias for conv in convolutions if conv.bias is not None])
    widths = torch.cat(
        [torch.full((conv.out_channels,), conv.kernel_size[0], device=bias.device) for conv in convolutions]
    )
    return kernel, bias, widths


#: cuDNN runs LSTMs in bfloat16 from this version on (9.13); older ones have no bfloat16 RNN.
CUDNN_BFLOAT16_RNN = 91300


def lstm_dtype(tokens: torch.Tensor) -> torch.dtype:
    """The dtype of the fused LSTM: autocast's when it is on and the kernel has it, else ``tokens``'."""
    device = tokens.device.type
    if not torch.is_autocast_enabled(device):
        return tokens.dtype
    dtype = torch.get_autocast_dtype(device)
    if device == "cuda" and dtype == torch.bfloat16 and (torch.backends.cudnn.version() or 0) < CUDNN_BFLOAT16_RNN:
        return tokens.dtype
    return dtype


def torch_lstm_weights(layer: LstmWithProjection) -> list[torch.Tensor]:
    """One ``ElmoLstmProjectionLayer``'s weights in the layout of ``nn.LSTM(proj_size=P)``: w_ih,
    w_hh, b_ih, b_hh, w_hr.

    Gate blocks go from the original i, j, f, o to torch's i, f, g(=j), o; the forget bias is
    folded into b_ih and b_hh is zero. Derived from the parameters (gradients flow back).
    """
    cell = layer.state_linear.weight.shape[0] // 4
    blocks = torch.arange(4 * cell, device=layer.projection.weight.device).view(4, cell)[[0, 2, 1, 3]].flatten()
    forget = torch.zeros(4 * cell, device=blocks.device, dtype=layer.input_linear.bias.dtype)
    forget[cell : 2 * cell] = FORGET_BIAS
    b_ih = layer.input_linear.bias[blocks] + forget
    return [
        layer.input_linear.weight[blocks],
        layer.state_linear.weight[blocks],
        b_ih,
        torch.zeros_like(b_ih),
        layer.projection.weight,
    ]


#: Rows x steps of input gates computed per GEMM in the fast LSTM (bounds its memory).
GATE_BLOCK_ROWS = 512


def stacked_weights(layers: tuple[LstmWithProjection, LstmWithProjection]) -> tuple[torch.Tensor, ...]:
    """The forward and backward weights of one biLM layer (two ``ElmoLstmProjectionLayer``) stacked on axis 0 for batched GEMMs.

    Gate blocks are reordered from the original i, j, f, o to i, f, o, j (one sigmoid, one
    tanh per step) and the forget bias is folded into the input bias. Returns W_input
    (2, P, 4C), W_state (2, P, 4C), W_projection (2, C, P) and the bias (2, 4C).
    """
    cell = layers[0].state_linear.weight.shape[0] // 4
    blocks = torch.arange(4 * cell, device=layers[0].projection.weight.device).view(4, cell)[[0, 2, 3, 1]].flatten()
    w_input = torch.stack([layer.input_linear.weight[blocks].t() for layer in layers])
    w_state = torch.stack([layer.state_linear.weight[blocks].t() for layer in layers])
    w_projection = torch.stack([layer.projection.weight.t() for layer in layers])
    bias = torch.stack([layer.input_linear.bias[blocks] for layer in layers])
    bias[:, cell : 2 * cell] += FORGET_BIAS
    return w_input, w_state, w_projection, bias


def bidirectional_lstm_layer(
    weights: tuple[torch.Tensor, ...],
    inputs: torch.Tensor,
    running: list[int],
    state: tuple[torch.Tensor, torch.Tensor],
    cell_clip: float | None,
    proj_clip: float | None,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """One biLM layer, both directions at once (axis 0), over length-sorted rows.

    Args:
        weights: the layer's ``stacked_weights``.
        inputs: (2, B, S, P), each direction's sequence in its reading order, rows sorted by
            length (descending); ``running[t]`` rows are real at step t.
        state: h (2, B, P) and c (2, B, C) to start from.
        cell_clip, proj_clip: clipping of the cell and the projected state (``None``: none).

    Returns:
        outputs (2, B, S, P), zero beyond each row's length, and the state (h, c) after each
        row's last real step.

    When no gradient is recorded (grad mode off, or nothing here requires one) each step is
    written straight into one preallocated output; otherwise the steps are kept apart and joined
    at the end, since an in-place write would make the backward pass copy the whole output at
    every step. Both give the same values bit for bit, in the same memory layout.
    """
    w_input, w_state, w_projection, bias = weights
    n_rows, steps, width = inputs.shape[1:]
    cell = w_state.shape[-1] // 4
    h, c = state
    records_grad = torch.is_grad_enabled() and any(x.requires_grad for x in (*weights, inputs, h, c))
    outputs: list[torch.Tensor] = []  # (n_t, 2, P) per step, when gradients are recorded
    written: torch.Tensor | None = None  # (S, B, 2, P) in h's dtype, when they are not
    ended_h: list[torch.Tensor] = []  # states of rows that ended, later rows first
    ended_c: list[torch.Tensor] = []
    block_start = block_end = 0
    gates_x = inputs.new_empty(0)  # (2, n, steps of the block, 4C), computed at the first step
    for t in range(steps):
        n = running[t]
        if n < h.shape[1]:
            ended_h.append(h[:, n:])
            ended_c.append(c[:, n:])
            h, c = h[:, :n], c[:, :n]
        if n == 0:
            break
        if t == block_end:  # the input half of the gates for the next block of steps: one GEMM
            block_start, block_end = t, min(steps, t + max(1, GATE_BLOCK_ROWS // n))
            block = inputs[:, :n, block_start:block_end].reshape(2, -1, width)
            gates_x = torch.baddbmm(bias.unsqueeze(1), block, w_input).view(2, n, block_end - block_start, 4 * cell)
        gates = torch.baddbmm(gates_x[:, :n, t - block_start], h, w_state)  # (2, n, 4C)
        sigmoids = torch.sigmoid(gates[..., : 3 * cell])
        c = torch.addcmul(sigmoids[..., cell : 2 * cell] * c, sigmoids[..., :cell], torch.tanh(gates[..., 3 * cell :]))
        if cell_clip is not None:
            c = c.clamp(-cell_clip, cell_clip)
        h = torch.bmm(sigmoids[..., 2 * cell :] * torch.tanh(c), w_projection)  # (2, n, P)
        if proj_clip is not None:
            h = h.clamp(-proj_clip, proj_clip)
        if records_grad:
            outputs.append(h.transpose(0, 1))
        else:
            if written is None:
                written = h.new_zeros(steps, n_rows, 2, width)
            written[t, :n] = h.transpose(0, 1)
    if written is None:  # the recorded steps (or none), padded with zeros to (S, B, 2, P)
        # each step padded apart, then stacked: pad_sequence copies them into one tensor in place, whose
        # backward keeps a copy of the whole gradient per step (memory quadratic in the steps)
        padded = [
            step if step.shape[0] == n_rows else nn.functional.pad(step, (0, 0, 0, 0, 0, n_rows - step.shape[0]))
            for step in outputs
        ]
        joined = torch.stack(padded) if padded else inputs.new_zeros(0, n_rows, 2, width)
        written = nn.functional.pad(joined, (0, 0, 0, 0, 0, 0, 0, steps - joined.shape[0]))
    out = written.permute(2, 1, 0, 3)  # (2, B, S, P)
    final_h = torch.cat([h] + ended_h[::-1], dim=1)
    final_c = torch.cat([c] + ended_c[::-1], dim=1)
    return out, (final_h, final_c)
