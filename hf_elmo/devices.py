"""Which device a command runs on (``--device``)."""

from __future__ import annotations

import os

import torch


def resolve_device(name: str | None) -> torch.device:
    """``name`` as a device (default: cuda when available, else cpu); plain ``cuda`` is
    ``cuda:LOCAL_RANK`` under torchrun on a machine with several GPUs. An unknown name, or
    cuda where there is none, is a one-line ``ValueError`` saying what to pass instead."""
    if name is None:
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"unknown device {name!r}; use cpu, cuda or cuda:N") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"device {name!r}: no CUDA device is available here (torch.cuda.is_available() "
                "is False); use --device cpu"
            )
        if device.index is None and "LOCAL_RANK" in os.environ and torch.cuda.device_count() > 1:
            device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    return device
