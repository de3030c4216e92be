"""The biLM recurrence with static shapes: every row runs every step, and a mask says which are real.

ElmoModel's own paths skip padding (the plain path by its per-row lengths, the fast path by
length-sorted rows whose count shrinks step by step, read on the host); their shapes and loop
counts depend on the values of the lengths. Here nothing does: for a token layer (B, S, P) and
a (B, S) mask of real steps,

    per layer, both directions at once (axis 0 of ``elmo_kernels.stacked_weights``):
      the backward direction's input reversed within each row's length (a gather whose index
      is computed on the device), so that in both directions every row reads its real steps
      first and its padding after them
      input half of the gates, one GEMM over all steps -> (2, B, S, 4C)
      S steps of the plain LSTM recurrence, no mask in them (the steps on padding come after a
      row's real ones and change none of them); cell and projection clipping as configured
      the backward outputs put back in position order by the same gather, zero on padding
      -> (2, B, S, P) in position order (+ the layer's input from layer 1 on, with skip connections)
    -> L tensors (B, S, 2P): forward and backward outputs concatenated.

No step reads a value back to the host (no ``.item()``, ``.tolist()``, boolean indexing or
``nonzero``), so one call can be captured as a CUDA graph (``cuda_graphs.py``) or traced
(``export_graph.py``). The loop over the steps is pluggable: ``unrolled_scan`` (a Python loop,
what CUDA graphs capture) or ``torch._higher_order_ops.scan.scan`` (``export_graph.unaliased_scan``:
one ``Scan`` node in an exported graph); both run the same step (``masked_bilm_layer``'s ``step``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

#: One step of a scan: (carry, the step's slice of the inputs) -> (new carry, the step's output).
Step = Callable[[Any, Any], tuple[Any, torch.Tensor]]
#: A scan over axis 0 of the inputs: (step, initial carry, inputs) -> (final carry, stacked outputs).
ScanLoop = Callable[[Step, Any, Any], tuple[Any, torch.Tensor]]


def unrolled_scan(step: Step, init: Any, xs: Sequence[torch.Tensor]) -> tuple[Any, torch.Tensor]:
    """``scan`` as a plain Python loop over axis 0 of ``xs``: a fixed number of steps of fixed
    shapes (what a CUDA graph captures); returns the final carry and the outputs stacked on axis 0."""
    carry = init
    outputs = []
    for t in range(xs[0].shape[0]):
        carry, out = step(carry, tuple(x[t] for x in xs))
        outputs.append(out)
    return carry, torch.stack(outputs)


def masked_bilm(
    weights: Sequence[Sequence[torch.Tensor]],
    tokens: torch.Tensor,
    real: torch.Tensor,
    h0: torch.Tensor,
    c0: torch.Tensor,
    cell_clip: float | None,
    proj_clip: float | None,
    use_skip_connections: bool,
    loop: ScanLoop = unrolled_scan,
) -> list[torch.Tensor]:
    """All biLM layers over a token layer, with shapes that do not depend on the values.

    Args:
        weights: per layer, ``elmo_kernels.stacked_weights`` of its forward and backward LSTM:
            W_input (2, P, 4C), W_state (2, P, 4C), W_projection (2, C, P), bias (2, 4C).
        tokens: (B, S, P) the token layer, sentence markers in place.
        real: (B, S) bool, True on each row's real steps (a left-aligned prefix).
        h0, c0: (2, L, P) and (2, L, C) the initial state of every row (zeros or the warm state).
        cell_clip, proj_clip: clipping of the cell and the projected state (``None``: none).
        use_skip_connections: add each layer's input to its output from layer 1 on.
        loop: how the steps run (``unrolled_scan``, or ``export_graph.unaliased_scan``'s ``scan``).

    Returns:
        L tensors (B, S, 2P), forward and backward outputs concatenated, zero where ``real`` is False.
    """
    x = torch.stack([tokens, tokens])  # (2, B, S, P): per direction, in position order
    layers = []
    for index, layer_weights in enumerate(weights):
        out = masked_bilm_layer(layer_weights, x, real, h0[:, index], c0[:, index], cell_clip, proj_clip, loop)
        if index > 0 and use_skip_connections:
            out = out + x
        layers.append(torch.cat([out[0], out[1]], dim=-1))
        x = out
    return layers


def masked_bilm_layer(
    weights: Sequence[torch.Tensor],
    x: torch.Tensor,
    real: torch.Tensor,
    h0: torch.Tensor,
    c0: torch.Tensor,
    cell_clip: float | None,
    proj_clip: float | None,
    loop: ScanLoop = unrolled_scan,
) -> torch.Tensor:
    """One biLM layer over ``x`` (2, B, S, P) (each direction's input in position order) from the
    initial state h0 (2, P), c0 (2, C) of every row; returns (2, B, S, P) in position order,
    zero where ``real`` (B, S) is False.

    A step is the LSTM's alone (two GEMMs and the gates' elementwise work): no ``torch.where``
    keeps a row's state on its padding, since a row's padding comes after its real steps in
    both directions' reading order."""
    w_input, w_state, w_projection, bias = weights
    batch = x.shape[1]
    cell = w_state.shape[-1] // 4
    backward_order = reversal_within_lengths(real)  # (B, S)
    inputs = torch.stack([x[0], gather_steps(x[1], backward_order)])  # (2, B, S, P), reading order
    gates_x = torch.baddbmm(bias.unsqueeze(1), inputs.flatten(1, 2), w_input)  # (2, B*S, 4C)
    gates_x = gates_x.unflatten(1, (batch, -1))  # (2, B, S, 4C)
    h = h0.unsqueeze(1).expand(2, batch, -1).contiguous()
    c = c0.unsqueeze(1).expand(2, batch, -1).contiguous()

    def step(carry: tuple[torch.Tensor, torch.Tensor], step_inputs: tuple[torch.Tensor]):
        h, c = carry
        (gx,) = step_inputs  # (2, B, 4C)
        # Gate blocks i, f, o, j (stacked_weights' order): one sigmoid, one tanh.
        gates = torch.baddbmm(gx, h, w_state)
        sigmoids = torch.sigmoid(gates[..., : 3 * cell])
        c_new = torch.addcmul(
            sigmoids[..., cell : 2 * cell] * c, sigmoids[..., :cell], torch.tanh(gates[..., 3 * cell :])
        )
        if cell_clip is not None:
            c_new = c_new.clamp(-cell_clip, cell_clip)
        h_new = torch.bmm(sigmoids[..., 2 * cell :] * torch.tanh(c_new), w_projection)  # (2, B, P)
        if proj_clip is not None:
            h_new = h_new.clamp(-proj_clip, proj_clip)
        return (h_new, c_new), h_new

    _, outputs = loop(step, (h, c), (gates_x.permute(2, 0, 1, 3),))
    outputs = outputs.permute(1, 2, 0, 3)  # (2, B, S, P), reading order
    outputs = torch.stack([outputs[0], gather_steps(outputs[1], backward_order)])  # position order
    # where, not a product: a long padding may take a row's state anywhere, and 0 * inf is NaN
    return torch.where(real.unsqueeze(-1), outputs, outputs.new_zeros(()))


def reversal_within_lengths(real: torch.Tensor) -> torch.Tensor:
    """(B, S) step indices that reverse each row's real steps, a left-aligned prefix of ``real``
    (B, S), and keep its padding in place: ``length - 1 - t`` for ``t < length``, else ``t``. Its
    own inverse; computed on the device (no value read back)."""
    steps = torch.arange(real.shape[1], device=real.device)
    lengths = real.sum(1, keepdim=True)
    return torch.where(steps < lengths, lengths - 1 - steps, steps)


def gather_steps(x: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """``x`` (B, S, P) with each row's steps taken in ``order`` (B, S)."""
    return x.gather(1, order.unsqueeze(-1).expand_as(x))
