"""Which device a command runs on (``--device``), and the dtype a name stands for (``--dtype``, ``dtype=``)."""

from __future__ import annotations

from typing import Any

import torch

from .messages import quoted
from .torchrun import local_rank


def resolve_device(name: str | None, cpu_hint: str = "--device cpu") -> torch.device:
    """``name`` as a device (default: cuda when available, else cpu); plain ``cuda`` is
    ``cuda:LOCAL_RANK`` under torchrun on a machine with several GPUs (with one, every process takes it).
    An unknown name, a device this machine or torch build does not have (cuda without a GPU, ``cuda:3``
    with one, a ``LOCAL_RANK`` beyond the GPUs, ``mps`` on Linux, ``xla`` without torch_xla) or ``meta``
    (shapes without data) is a one-line ``ValueError`` saying what to pass instead (``cpu_hint``: how the
    caller names the CPU, ``--device cpu`` for a command)."""
    if name is None:
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"unknown device {quoted(name)}; use cpu, cuda or cuda:N") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                f"device {name!r}: no CUDA device is available here (torch.cuda.is_available() "
                f"is False); use {cpu_hint}"
            )
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise ValueError(f"device {name!r}: this machine has {count} CUDA device(s), cuda:0..cuda:{count - 1}")
        local = local_rank() if device.index is None and count > 1 else None
        if local is not None and local >= count:
            raise ValueError(
                f"LOCAL_RANK={local} (torchrun's) but this machine has {count} CUDA devices, cuda:0..cuda:{count - 1}, "
                f"and under torchrun --device {name} is cuda:LOCAL_RANK: start torchrun with --nproc_per_node at most "
                f"{count}"
            )
        if local is not None:
            device = torch.device("cuda", local)
    elif device.type == "meta":
        raise ValueError(f"device {name!r} holds shapes without data and cannot run a model; use cpu or cuda")
    elif device.type != "cpu":
        try:  # torch fails on a backend it was not built with in many ways (NotImplementedError, AssertionError, ...)
            torch.empty(0, device=device)
        except Exception:
            raise ValueError(
                f"device {name!r} is not available to this torch build or machine; use cpu or cuda"
            ) from None
    return device


#: ``from_pretrained(device_map=...)``'s names that are no device: how transformers spreads a model over
#: the devices there are.
_DEVICE_MAP_STRATEGIES = ("auto", "balanced", "balanced_low_0", "sequential")


def check_device_map(device_map: Any) -> None:
    """Refuse a ``from_pretrained(device_map=...)`` that names a device this machine or torch build does
    not have (``resolve_device``'s rule: ``"cuda"`` without a GPU, ``"cuda:7"`` with fewer, ``"mps"`` on
    Linux), in one line naming it, before anything is loaded; a dict's devices are checked each. An
    integer is that accelerator's index. Transformers' strategies (``"auto"``), ``"disk"`` and
    ``"meta"`` (shapes only) pass, and so does a name torch does not know (transformers names it)."""
    places = device_map.items() if isinstance(device_map, dict) else [(None, device_map)]
    for module, place in places:
        if place is None or place in (*_DEVICE_MAP_STRATEGIES, "disk", "meta"):
            continue
        if isinstance(place, int) and not isinstance(place, bool):
            accelerator = torch.accelerator.current_accelerator()
            place = f"{'cuda' if accelerator is None else accelerator.type}:{place}"
        try:
            torch.device(place)
        except (RuntimeError, TypeError):
            continue
        try:
            resolve_device(str(place), cpu_hint="device_map='cpu'")
        except ValueError as err:
            where = "device_map" if module is None else f"device_map[{module!r}]"
            raise ValueError(f"{where}: {err}") from None


def resolve_dtype(dtype: str | torch.dtype) -> torch.dtype:
    """``dtype`` as a torch floating-point dtype: a ``torch.dtype`` as it is, or its name (``"bfloat16"``,
    ``"torch.bfloat16"``), as ``from_pretrained(dtype=...)`` takes either; ``embed_sentences``,
    ``export_model`` and ``elmo embed --dtype`` read theirs here. Any other name or dtype is a one-line
    ``ValueError``."""
    resolved = getattr(torch, dtype.removeprefix("torch."), None) if isinstance(dtype, str) else dtype
    if not isinstance(resolved, torch.dtype) or not resolved.is_floating_point:
        raise ValueError(f"dtype {dtype!r} is no floating-point torch dtype; use e.g. float32, float16 or bfloat16")
    return resolved
