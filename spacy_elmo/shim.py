"""A ``PyTorchShim`` for ``ElmoModel`` that serialises as config JSON + safetensors (no pickle), and
keeps the loader its Thinc model was configured with (not serialised: it comes from the config)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import srsly
import torch
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors
from thinc.api import Optimizer, PyTorchGradScaler, PyTorchShim, xp2torch

from hf_elmo import ElmoConfig, ElmoModel

from .doc_layers import BiLm


def serialize_elmo(model: ElmoModel | None) -> bytes:
    """msgpack of ``{"config": dict, "weights": safetensors bytes}``; empty for no model."""
    if model is None:
        return srsly.msgpack_dumps({})
    state = {k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}
    return srsly.msgpack_dumps({"config": model.config.to_dict(), "weights": save_safetensors(state)})


def deserialize_elmo(model: ElmoModel | None, data: bytes, device: torch.device) -> ElmoModel | None:
    """Rebuild the ``ElmoModel`` written by ``serialize_elmo`` on ``device``."""
    msg = srsly.msgpack_loads(data)
    if not msg:
        return None
    config = ElmoConfig.from_dict(msg["config"])
    elmo = ElmoModel(config)
    elmo.load_state_dict(load_safetensors(msg["weights"]), strict=True)
    elmo.eval()
    return elmo.to(device)  # type: ignore[arg-type]  # typeshed's functools.wraps leaves PreTrainedModel.to unbound


def bilm_record(elmo: ElmoModel) -> BiLm:
    """``elmo`` as the layers it computes record it (``ElmoLayers.bilm``): where it came from and its digest."""
    from hf_elmo.embed import model_fingerprint  # (elmo embed's module, h5py with it: not at import)

    return BiLm(elmo.config.name_or_path or "an unnamed biLM", model_fingerprint(elmo))


class ElmoShim(PyTorchShim):
    """Holds the ``ElmoModel`` (``None`` until weights are loaded) for a Thinc model, the
    ``loader`` that model was given (``None``: none), and its mixed-precision settings: autocast
    on CUDA and a gradient scaler for fine-tuning."""

    def __init__(
        self,
        elmo: ElmoModel | None = None,
        *,
        loader: Callable[[], ElmoModel] | None = None,
        mixed_precision: bool = False,
        grad_scaler: PyTorchGradScaler | None = None,
    ) -> None:
        super().__init__(
            elmo,
            mixed_precision=mixed_precision,
            grad_scaler=grad_scaler,
            serialize_model=serialize_elmo,
            deserialize_model=deserialize_elmo,
        )
        self.loader = loader
        self._bilm: tuple[ElmoModel, BiLm] | None = None

    @property
    def mixed_precision(self) -> bool:
        return self._mixed_precision

    @property
    def grad_scaler(self) -> PyTorchGradScaler:
        return self._grad_scaler

    @contextlib.contextmanager
    def autocast(self) -> Iterator[None]:
        """float16 autocast while the biLM runs, if mixed precision is on and it is on CUDA."""
        on_cuda = self._model is not None and next(self._model.parameters()).device.type == "cuda"
        with torch.autocast("cuda", enabled=self._mixed_precision and on_cuda):
            yield

    def backward(self, outputs: list[torch.Tensor], grads: list[torch.Tensor]) -> None:
        """Backpropagate ``grads`` into the biLM's parameters, scaled by the gradient scaler and
        unscaled again (``finish_update`` skips the step after an overflow), as Thinc's
        ``PyTorchShim.begin_update`` does, but only the gradients of this pass are unscaled: those
        the parameters hold already (an earlier batch's of the same step, ``[training]
        accumulate_gradient``), unscaled by their own pass, are added back after it (Thinc's
        unscales them again, dividing them by the scale once more)."""
        parameters = list(self._model.parameters())
        held = [p.grad for p in parameters]
        for parameter in parameters:
            parameter.grad = None
        scaled = self._grad_scaler.scale(grads, inplace=True)
        torch.autograd.backward(outputs, scaled)
        self._grad_scaler.unscale([p.grad for p in parameters if p.grad is not None])
        for parameter, before in zip(parameters, held):
            if before is not None:
                parameter.grad = before if parameter.grad is None else parameter.grad.add_(before)

    @property
    def elmo(self) -> ElmoModel | None:
        """The wrapped biLM, or ``None`` before weights are loaded."""
        return self._model

    def load(self, elmo: ElmoModel) -> None:
        """Wrap ``elmo``, moved to the device of the current Thinc ops."""
        from thinc.util import get_torch_default_device

        self._model = elmo.to(get_torch_default_device())  # type: ignore[arg-type]  # as in deserialize_elmo
        self._bilm = None

    def bilm(self) -> BiLm | None:
        """The biLM as the layers it computes record it (``ElmoLayers.bilm``), ``None`` before weights are
        loaded. Its digest (``model_fingerprint``, which reads every weight) is computed once for the weights
        as they are, and again only for a model loaded since (``load``, ``from_bytes``) or weights stepped
        since (``finish_update``: a fine-tuned biLM; thinc's ``use_params`` swaps in no averaged weights of a
        PyTorch model, as its optimizer keys them otherwise than it reads them)."""
        if self._model is None:
            return None
        if self._bilm is None or self._bilm[0] is not self._model:
            self._bilm = (self._model, bilm_record(self._model))
        return self._bilm[1]

    def finish_update(self, optimizer: Optimizer) -> None:
        self._bilm = None
        super().finish_update(optimizer)

    @contextlib.contextmanager
    def use_params(self, params: Mapping[Any, Any]) -> Iterator[None]:
        """Use the averages of a fine-tuned biLM's parameters that ``params`` (an optimizer's ``averages``:
        ``spacy train`` evaluates and saves the pipeline under them with ``[training.optimizer] use_averages =
        true``) holds, keyed as ``finish_update`` hands the parameters to the optimizer, ``(self.id, name)``;
        the weights are restored after. Thinc's ``PyTorchShim.use_params`` reads keys ``"pytorch_{id}_{name}"``,
        which no optimizer writes, so the biLM was evaluated and saved with its last weights beside the other
        components' averages. Buffers (``warm_h``, ``warm_c``) take no step, so they have no averages and
        stay. The averages are copied into the biLM's own tensors, and its digest (``bilm``) is computed again for
        the weights in use."""
        swapped = [] if self._model is None else list(self._model.named_parameters())
        swapped = [(name, weight) for name, weight in swapped if (self.id, name) in params]
        if not swapped:
            yield
            return
        kept = [weight.detach().clone() for _, weight in swapped]
        with torch.no_grad():
            for name, weight in swapped:
                weight.copy_(xp2torch(params[(self.id, name)], device=weight.device))
        self._bilm = None
        try:
            yield
        finally:
            with torch.no_grad():
                for (_, weight), before in zip(swapped, kept):
                    weight.copy_(before)
            self._bilm = None
