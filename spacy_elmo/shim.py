"""A ``PyTorchShim`` for ``ElmoModel`` that serialises as config JSON + safetensors (no pickle)."""

from __future__ import annotations

from typing import Optional

import srsly
import torch
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors
from thinc.api import PyTorchShim

from hf_elmo import ElmoConfig, ElmoModel


def serialize_elmo(model: Optional[ElmoModel]) -> bytes:
    """msgpack of ``{"config": dict, "weights": safetensors bytes}``; empty for no model."""
    if model is None:
        return srsly.msgpack_dumps({})
    state = {k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}
    return srsly.msgpack_dumps({"config": model.config.to_dict(), "weights": save_safetensors(state)})


def deserialize_elmo(model: Optional[ElmoModel], data: bytes, device: torch.device) -> Optional[ElmoModel]:
    """Rebuild the ``ElmoModel`` written by ``serialize_elmo`` on ``device``."""
    msg = srsly.msgpack_loads(data)
    if not msg:
        return None
    config = ElmoConfig.from_dict(msg["config"])
    elmo = ElmoModel(config)
    elmo.load_state_dict(load_safetensors(msg["weights"]), strict=True)
    elmo.eval()
    return elmo.to(device)


class ElmoShim(PyTorchShim):
    """Holds the ``ElmoModel`` (``None`` until weights are loaded) for a Thinc model."""

    def __init__(self, elmo: Optional[ElmoModel] = None) -> None:
        super().__init__(elmo, serialize_model=serialize_elmo, deserialize_model=deserialize_elmo)

    @property
    def elmo(self) -> Optional[ElmoModel]:
        """The wrapped biLM, or ``None`` before weights are loaded."""
        return self._model

    def load(self, elmo: ElmoModel) -> None:
        """Wrap ``elmo``, moved to the device of the current Thinc ops."""
        from thinc.util import get_torch_default_device

        self._model = elmo.to(get_torch_default_device())
