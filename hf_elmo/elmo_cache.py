"""What the ELMo model keeps between calls: weights derived from its parameters, and the token
layer of recently seen tokens. Both are exact: nothing kept is used once a parameter changes.
What is kept is keyed on the parameters' storage and version counters and on the count of torch optimizer
steps taken in the process (``optimizer_steps``), since fused optimizers change parameters
without a trace in their version counters; a call in which gradients flow to the parameters
drops everything too. Changes made through ``.data``, or by an optimizer that is not a
``torch.optim.Optimizer``, leave no trace: ``ElmoModel.clear_caches()`` after such an edit.

    parameter_key(params)     what identifies the parameters' current values (or None)
    autocast_dtype(device)    autocast's dtype on a device now (part of the token cache's key)
    DerivedWeights            re-laid-out weights for the fast and fused paths, remade on change
    TokenLayerCache           an LRU of char-CNN token vectors, one row per distinct token
    fork_safe_lock()          a lock of module state that a forked child finds free

This file imports only torch; a saved model folder carries it with ``modeling_elmo.py`` for
``trust_remote_code=True``.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook


def fork_safe_lock() -> threading.Lock:
    """A lock of module-level state that a forked child uses too (``os.register_at_fork``, where the
    platform has it): a fork waits until no thread holds it, and parent and child then find it free
    and the state it guards whole. (A lock held by another thread at a fork is held for good in the
    child, which has no such thread: its first use there would hang; a fresh lock instead would
    leave it the state that thread was changing.) Hold it briefly, never while forking or waiting
    for another such lock."""
    lock = threading.Lock()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=lock.acquire, after_in_parent=lock.release, after_in_child=lock.release)
    return lock


#: Held while the optimizer steps are counted and while a ``TokenLayerCache`` reads or changes its
#: rows (the char CNN runs outside it).
_LOCK = fork_safe_lock()

_optimizer_steps = 0


def _count_optimizer_step(optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
    """One more optimizer step, counted whole: two threads' steps at once count two (a count lost
    could give a key after one of them the value of a key before it)."""
    global _optimizer_steps
    with _LOCK:
        _optimizer_steps += 1


# Every torch optimizer's step, fused ones included (they leave the version counters as they were).
register_optimizer_step_post_hook(_count_optimizer_step)


def optimizer_steps() -> int:
    """How many ``torch.optim.Optimizer`` steps this process has taken (any optimizer, any model)."""
    return _optimizer_steps


def parameter_key(params: Sequence[torch.Tensor]) -> tuple[Any, ...] | None:
    """What identifies the values of ``params``: the process's ``optimizer_steps`` and, of each, its
    storage (a weak reference, and the address of its data), dtype, device and version counter;
    ``None`` when values derived from them must not be kept (gradients must flow to them, or they
    are inference tensors, which keep no version counter).

    The weak reference tells new storage from old at the same address: a dtype round trip
    (``model.half().float()``) gives every parameter new storage with its old version counter,
    and an allocator may place it where the old one was (the CUDA caching allocator nearly always
    does); a key of addresses and counters alone then matched the values before the round trip.
    Two keys are equal only while both storages live (a dead reference equals only itself)."""
    if (torch.is_grad_enabled() and any(p.requires_grad for p in params)) or any(p.is_inference() for p in params):
        return None
    return (
        optimizer_steps(),
        *((weakref.ref(p.untyped_storage()), p.data_ptr(), p.dtype, p.device, p._version) for p in params),
    )


def autocast_dtype(device_type: str) -> torch.dtype | None:
    """The dtype autocast computes in on ``device_type`` now, ``None`` when it is off."""
    return torch.get_autocast_dtype(device_type) if torch.is_autocast_enabled(device_type) else None


class DerivedWeights:
    """Weights re-laid out from parameters for the fast path, kept between calls.

    ``get(name, params, build)`` returns ``build()``, remade whenever one of ``params`` is
    replaced or modified in place (an optimizer step, ``load_state_dict``, ``.to()``; see
    ``parameter_key``). When nothing may be kept, ``build()`` runs every time.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[tuple[Any, ...], Any]] = {}

    def get(self, name: str, params: Sequence[torch.Tensor], build: Callable[[], Any]) -> Any:
        key = parameter_key(params)
        if key is None:  # gradients flow: an optimizer step may follow that leaves no trace in the keys
            self.clear()
            return build()
        entry = self._entries.get(name)
        if entry is None or entry[0] != key:
            # normal tensors, even when made in inference mode: a later call may save them for the backward
            # (leaving inference mode enables gradients: no_grad comes second)
            with torch.inference_mode(False), torch.no_grad():
                entry = (key, build())
            self._entries[name] = entry
        return entry[1]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def __getstate__(self) -> dict[str, Any]:
        """A pickled copy (``copy.deepcopy``, ``torch.save`` of a whole model, a worker started by
        ``spawn``) holds no entries: they are keyed by the parameters' storage, which the copy's are
        not, so it would remake them at its first call anyway."""
        return {"_entries": {}}


def _names(char_ids: torch.Tensor) -> list[bytes]:
    """Each row's key in a ``TokenLayerCache``: its char ids as bytes, two a slot (char ids are below
    262; int64 ones took 400 bytes a token of the shipped models, more than its row of the table).
    Ids that two bytes cannot hold (unchecked under ``torch.compile``) keep all theirs, so they never
    find the row of the id they would wrap to."""
    ids = char_ids.cpu()
    low, high = torch.aminmax(ids)
    if _INT16.min <= int(low) and int(high) <= _INT16.max:
        ids = ids.to(torch.int16)
    return [row.tobytes() for row in ids.numpy()]


_INT16 = torch.iinfo(torch.int16)


class TokenLayerCache:
    """A bounded LRU of the char-CNN token layer, one row per distinct token, for inference.

    The token layer depends on a token's character ids alone, so running text, which repeats
    its words, needs the char CNN only for the tokens not seen lately. The rows are exactly
    what the char CNN computed under the autocast setting of the call; all are dropped when
    its parameters change (``parameter_key``), when autocast is turned on, off or to another
    dtype, and when a call lets gradients flow to them. ``max_types`` rows (P floats each) are
    kept on the model's device; ``max_types=0`` turns the cache off, and a new value takes
    effect at the next call (the rows kept are dropped).

    One model may serve several threads at once: the bookkeeping and the table are read and
    changed under ``_LOCK`` only (a call copies the rows it found before it releases it, and
    stores the rows it computed under it again), never while the char CNN runs.
    """

    def __init__(self, max_types: int = 50_000) -> None:
        self.max_types = max_types
        self._forget()

    def clear(self) -> None:
        """Forget every row."""
        with _LOCK:
            self._forget()

    def __getstate__(self) -> dict[str, Any]:
        """A pickled copy (``copy.deepcopy``, ``torch.save`` of a whole model, a worker started by
        ``spawn``: ``nlp.pipe(n_process=N)`` outside Linux) keeps ``max_types`` and no rows: they are
        keyed by the char CNN's storage, which the copy's is not, so its first call would drop them."""
        return {"max_types": self.max_types}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.max_types = state["max_types"]
        self._forget()

    def _forget(self) -> None:
        self._slots: OrderedDict[bytes, int] = OrderedDict()  # token's char ids (_names) -> row of the table
        self._table: torch.Tensor | None = None  # (max_types, P)
        self._key: tuple[Any, ...] | None = None

    def __len__(self) -> int:
        return len(self._slots)

    @torch.compiler.disable
    def token_layer(self, char_ids: torch.Tensor, char_cnn: nn.Module) -> torch.Tensor:
        """``char_cnn(char_ids)`` for distinct char-id rows (U, W), running it on the rows not kept.

        Runs eagerly under ``torch.compile``: its bookkeeping is the host's (an LRU of bytes), and
        dynamo (torch 2.13) lost its ``move_to_end`` calls at a graph break inside ``char_cnn``, so
        the LRU evicted tokens of the same call and returned other tokens' rows for them."""
        params = parameter_key(list(char_cnn.parameters()))
        max_types = self.max_types
        if params is None or not 0 < len(char_ids) <= max_types:
            with _LOCK:
                # gradients flow (an optimizer step may follow that leaves no trace in the key), or
                # the table has the old max_types rows
                if params is None or (self._key is not None and self._key[2] != max_types):
                    self._forget()
            return char_cnn(char_ids)
        key = (params, autocast_dtype(char_ids.device.type), max_types)
        names = _names(char_ids)
        with _LOCK:
            found, rows = self._read(key, names)
        if rows is not None and len(found) == len(names):
            return rows
        kept = set(found)
        missing = [i for i in range(len(names)) if i not in kept]
        computed = char_cnn(char_ids[missing])  # (M, P)
        with _LOCK:
            self._store(key, [names[i] for i in missing], computed)
        if rows is None:
            return computed
        out = computed.new_empty(len(names), computed.shape[1])
        out[found] = rows
        out[missing] = computed
        return out

    def _read(self, key: tuple[Any, ...], names: list[bytes]) -> tuple[list[int], torch.Tensor | None]:
        """The positions in ``names`` kept under ``key`` and a copy of their rows (``None``: none
        is kept), marked as the most recently used; every row goes first when ``key`` is not the
        table's. Under ``_LOCK``."""
        if key != self._key:
            self._forget()
            self._key = key
        found, slots = [], []
        for i, name in enumerate(names):
            slot = self._slots.get(name)
            if slot is not None:
                self._slots.move_to_end(name)
                found.append(i)
                slots.append(slot)
        if not found:
            return found, None
        assert self._table is not None, "a row is kept, so the table exists"
        return found, self._table.index_select(0, torch.tensor(slots, device=self._table.device))

    def _store(self, key: tuple[Any, ...], names: list[bytes], rows: torch.Tensor) -> None:
        """Keep ``rows`` (M, P), computed under ``key``, as the rows of ``names``, evicting the least
        recently used. Nothing is kept when the table's key changed meanwhile; a name that another
        call stored meanwhile keeps its row. Under ``_LOCK``."""
        max_types = key[2]
        if key != self._key:
            return
        if self._table is None:
            with torch.inference_mode(False):  # a normal tensor: it is updated in and out of inference mode
                self._table = rows.new_empty(max_types, rows.shape[1])
        positions, slots = [], []
        for position, name in enumerate(names):
            if name not in self._slots:
                slot = len(self._slots) if len(self._slots) < max_types else self._slots.popitem(last=False)[1]
                self._slots[name] = slot
                positions.append(position)
                slots.append(slot)
        if slots:
            self._table.index_copy_(0, torch.tensor(slots, device=rows.device), rows[positions])
