"""torchrun's environment: the ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and ``LOCAL_WORLD_SIZE`` it sets in each process it
starts, read here alone (``elmo pretrain``'s DDP rank, ``elmo embed``'s shard, the GPU of ``--device cuda``).
A process started otherwise has none of them: rank 0 of 1, no local rank. A value that is no whole number
(``WORLD_SIZE``: none >= 1) is a one-line ``ValueError`` naming the variable and its value. The standard library
only: ``elmo pretrain`` reads it for its usage errors without importing ``hf_elmo`` (``hf_elmo_cli``'s
``hf_elmo_module``)."""

from __future__ import annotations

import os
import re


def rank() -> int:
    """This process's rank among all of the run's (0 without torchrun)."""
    found = _whole_number("RANK")
    return 0 if found is None else found


def is_rank0() -> bool:
    """Whether this process is rank 0 of a torchrun run, or runs alone (known before the
    process group is: from torchrun's ``RANK``; one that is no number is a ``ValueError``)."""
    return rank() == 0


def world_size() -> int:
    """How many processes the run has (1 without torchrun)."""
    found = _whole_number("WORLD_SIZE", least=1)
    return 1 if found is None else found


def local_rank() -> int | None:
    """This process's rank among the run's processes on this machine (None without torchrun)."""
    return _whole_number("LOCAL_RANK")


def local_world_size() -> int | None:
    """How many of the run's processes run on this machine (None without torchrun)."""
    return _whole_number("LOCAL_WORLD_SIZE", least=1)


def _whole_number(name: str, least: int = 0) -> int | None:
    """The environment's ``name`` (None when unset)."""
    text = os.environ.get(name)
    if text is None:
        return None
    if not re.fullmatch(r"[0-9]+", text) or int(text) < least:
        raise ValueError(
            f"the environment's {name}={text!r} is no whole number{f' >= {least}' if least else ''}, as torchrun "
            f"sets it: unset {name}, or start the command with torchrun"
        )
    return int(text)
