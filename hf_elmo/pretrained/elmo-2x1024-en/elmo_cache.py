"""What the ELMo model keeps between calls: weights derived from its parameters, and the token
layer of recently seen tokens. Both are exact: nothing kept is used once a parameter changes.
What is kept is keyed on the parameters' version counters and on the count of torch optimizer
steps taken in the process (``optimizer_steps``), since fused optimizers change parameters
without a trace in their version counters; a call in which gradients flow to the parameters
drops everything too. Changes made through ``.data``, or by an optimizer that is not a
``torch.optim.Optimizer``, leave no trace: ``ElmoModel.clear_caches()`` after such an edit.

    parameter_key(params)     what identifies the parameters' current values (or None)
    autocast_dtype(device)    autocast's dtype on a device now (part of the token cache's key)
    DerivedWeights            re-laid-out weights for the fast and fused paths, remade on change
    TokenLayerCache           an LRU of char-CNN token vectors, one row per distinct token

This file imports only torch; a saved model folder carries it with ``modeling_elmo.py`` for
``trust_remote_code=True``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook

_optimizer_steps = 0


def _count_optimizer_step(optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
    global _optimizer_steps
    _optimizer_steps += 1


# Every torch optimizer's step, fused ones included (they leave the version counters as they were).
register_optimizer_step_post_hook(_count_optimizer_step)


def optimizer_steps() -> int:
    """How many ``torch.optim.Optimizer`` steps this process has taken (any optimizer, any model)."""
    return _optimizer_steps


def parameter_key(params: Sequence[torch.Tensor]) -> tuple[Any, ...] | None:
    """What identifies the values of ``params``: the process's ``optimizer_steps`` and storage,
    dtype, device and version counter of each; ``None`` when values derived from them must not be
    kept (gradients must flow to them, or they are inference tensors, which keep no version
    counter)."""
    if (torch.is_grad_enabled() and any(p.requires_grad for p in params)) or any(p.is_inference() for p in params):
        return None
    return (optimizer_steps(), *((p.data_ptr(), p.dtype, p.device, p._version) for p in params))


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
            with torch.no_grad():
                entry = (key, build())
            self._entries[name] = entry
        return entry[1]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()


class TokenLayerCache:
    """A bounded LRU of the char-CNN token layer, one row per distinct token, for inference.

    The token layer depends on a token's character ids alone, so running text, which repeats
    its words, needs the char CNN only for the tokens not seen lately. The rows are exactly
    what the char CNN computed under the autocast setting of the call; all are dropped when
    its parameters change (``parameter_key``), when autocast is turned on, off or to another
    dtype, and when a call lets gradients flow to them. ``max_types`` rows (P floats each) are
    kept on the model's device; ``max_types=0`` turns the cache off, and a new value takes
    effect at the next call (the rows kept are dropped).
    """

    def __init__(self, max_types: int = 50_000) -> None:
        self.max_types = max_types
        self.clear()

    def clear(self) -> None:
        """Forget every row."""
        self._slots: OrderedDict[bytes, int] = OrderedDict()  # token's char ids -> row of the table
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
        if params is None:  # gradients flow: an optimizer step may follow that leaves no trace in the key
            self.clear()
            return char_cnn(char_ids)
        if self._key is not None and self._key[2] != self.max_types:  # the table has the old max_types rows
            self.clear()
        if not 0 < len(char_ids) <= self.max_types:
            return char_cnn(char_ids)
        key = (params, autocast_dtype(char_ids.device.type), self.max_types)
        if key != self._key:
            self.clear()
            self._key = key
        names = [row.tobytes() for row in char_ids.cpu().numpy()]
        slots = [self._slots.get(name) for name in names]
        for name, slot in zip(names, slots):
            if slot is not None:
                self._slots.move_to_end(name)  # this call's rows are the last to be evicted
        missing = [i for i, slot in enumerate(slots) if slot is None]
        if missing:
            computed = char_cnn(char_ids[missing])  # (M, P)
            if self._table is None:
                with torch.inference_mode(False):  # a normal tensor: it is updated in and out of inference mode
                    self._table = computed.new_empty(self.max_types, computed.shape[1])
            for i in missing:
                slot = len(self._slots) if len(self._slots) < self.max_types else self._slots.popitem(last=False)[1]
                slots[i] = self._slots[names[i]] = slot
            self._table.index_copy_(0, torch.tensor([slots[i] for i in missing], device=computed.device), computed)
        table = self._table
        assert table is not None, "every row was found in the cache, so the table exists"
        return table.index_select(0, torch.tensor(slots, device=table.device))
