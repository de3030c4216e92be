"""One code path for one process and for ``torchrun --nproc_per_node N`` (DDP: NCCL on GPUs,
gloo on CPU): the process group, and the few collectives the trainer needs. Without a process
group every function is the one-process identity.

A run's refusal (``REFUSALS``) is raised on rank 0 as on every rank, so that rank 0 alone says it
(``elmo pretrain``): a check of the arguments and of the files every rank sees refuses alike on
each; one that may refuse on some ranks only (a rank's own files, a disk filling up) runs under
``refused_together``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import distributed as dist

from .. import torchrun
from ..torchrun import is_rank0

#: The errors that refuse a run (bad input, missing or unreadable files, a missing package): what
#: ``refused_together`` passes from rank to rank, and what ``elmo`` says in one line.
REFUSALS = (ValueError, OSError, ImportError)


def warn(message: str) -> None:
    """``message`` on stderr as a warning of ``elmo pretrain`` (every warning of a run goes this
    way), from rank 0 only."""
    if is_rank0():
        print(f"elmo pretrain: warning: {message}", file=sys.stderr)


def distributed_context(device: torch.device) -> tuple[int, int]:
    """(rank, world_size); initialises the process group when started by torchrun: NCCL for a
    process that trains on ``device`` cuda, gloo for one on the CPU. A cuda ``device`` becomes the
    process's current device first: NCCL's collectives (``_collective_device``) run there, and
    every rank would otherwise take GPU 0. torchrun's ``RANK`` and ``WORLD_SIZE`` are checked first (whole numbers;
    RANK < WORLD_SIZE when that is more than 1), so that a process that is no rank of the run is refused
    before the run starts, as is a run on cuda of more processes a machine than it has GPUs (NCCL's
    "Duplicate GPU detected" otherwise; every rank of the machine refuses alike)."""
    rank, world = torchrun.rank(), torchrun.world_size()
    if rank >= world > 1:
        raise ValueError(
            f"the environment's RANK={rank} and WORLD_SIZE={world} (as torchrun sets them) are no rank of the run: "
            "need 0 <= RANK < WORLD_SIZE; unset them, or start the command with torchrun"
        )
    local_world = torchrun.local_world_size()
    if (
        world > 1
        and device.type == "cuda"
        and local_world is not None
        and local_world > (count := torch.cuda.device_count())
    ):
        raise ValueError(
            f"torchrun started {local_world} processes on this machine (LOCAL_WORLD_SIZE) but it has {count} CUDA "
            f"device(s), and NCCL needs one a process: start torchrun with --nproc_per_node at most {count}, or "
            "train on --device cpu"
        )
    if world > 1 and not dist.is_initialized():
        if device.type == "cuda":
            torch.cuda.set_device(device)
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def end_distributed() -> None:
    """Destroy the process group, if there is one: a process that exits with it alive may be
    aborted by its threads ("terminate called without an active exception"), as a loaded
    2-core machine showed under torchrun."""
    if dist.is_initialized():
        dist.destroy_process_group()


def _collective_device() -> torch.device:
    """Where the tensors of a collective must be: NCCL reduces CUDA tensors only, gloo CPU ones."""
    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def all_reduce(value: torch.Tensor, op: dist.ReduceOp.RedOpType | None = None) -> torch.Tensor:
    """``value`` reduced over ranks (sum unless ``op``), on ``value``'s device."""
    if not dist.is_initialized():
        return value
    reduced = value.to(_collective_device(), copy=True)
    dist.all_reduce(reduced, op=op or dist.ReduceOp.SUM)
    return reduced.to(value.device)


def from_rank0(value: float) -> float:
    """Rank 0's ``value`` on every rank (e.g. its training seconds, which the ranks' clocks differ on)."""
    if not dist.is_initialized():
        return value
    tensor = torch.tensor(value, dtype=torch.float64, device=_collective_device())
    dist.broadcast(tensor, src=0)
    return float(tensor)


def agree(flag: bool) -> bool:
    """True on every rank when it is True on rank 0 (time-based triggers differ across ranks)."""
    if not dist.is_initialized():
        return flag
    value = torch.tensor(int(flag), device=_collective_device())
    dist.broadcast(value, src=0)
    return bool(value)


@contextmanager
def refused_together() -> Iterator[None]:
    """Run the block on every rank, then wait for all of them: when it refused (``REFUSALS``) on
    any, the refusal of the first such rank is raised on every rank (as itself on that rank, as an
    error of its kind with its message on the others), so that rank 0 says why the run stops and
    no rank goes on alone. The block must hold no collective: a rank that refuses skips the rest of it."""
    refusal: Exception | None = None
    try:
        yield
    except REFUSALS as err:
        if not dist.is_initialized():
            raise
        refusal = err
    if not dist.is_initialized():
        return
    said: list[tuple[type[Exception], str] | None] = [None] * dist.get_world_size()
    kind = next((k for k in REFUSALS if isinstance(refusal, k)), None)
    dist.all_gather_object(said, None if kind is None else (kind, str(refusal)))
    first = next((one for one in said if one is not None), None)
    if first is None:
        return
    if refusal is not None and first == (kind, str(refusal)):
        raise refusal
    raise first[0](first[1])


def barrier() -> None:
    """Wait for every rank (nothing with one process)."""
    if dist.is_initialized():
        dist.barrier()


def rank_divergence(model: torch.nn.Module) -> float:
    """The largest |weight - rank 0's weight| over all parameters and ranks (0.0 for one process)."""
    if not dist.is_initialized():
        return 0.0
    worst = torch.zeros((), dtype=torch.float64)
    for param in model.parameters():
        reference = param.detach().to(_collective_device(), copy=True)
        dist.broadcast(reference, src=0)
        worst = torch.maximum(worst, (param.detach() - reference.to(param.device)).abs().max().double().cpu())
    return float(all_reduce(worst, dist.ReduceOp.MAX))
