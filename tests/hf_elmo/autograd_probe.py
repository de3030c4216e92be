"""One training step, observed: its loss, each parameter's gradient, and how many values autograd
kept for the backward pass (activation checkpointing keeps only its parts' inputs and outputs)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn


def training_step(
    model: nn.Module, loss_of: Callable[[], torch.Tensor]
) -> tuple[torch.Tensor, dict[str, torch.Tensor], int]:
    """``loss_of()`` (dropout and sampling seeded with 1) and its backward pass on ``model``: the
    loss, the gradient of every parameter that got one, and the number of values kept."""
    kept = 0

    def keep(tensor: torch.Tensor) -> torch.Tensor:
        nonlocal kept
        kept += tensor.numel()
        return tensor

    model.zero_grad()
    torch.manual_seed(1)
    with torch.autograd.graph.saved_tensors_hooks(keep, lambda tensor: tensor):
        loss = loss_of()
    loss.backward()
    gradients = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    return loss.detach(), gradients, kept
