"""The biLM as a Thinc model: a batch of docs in, all L+1 layers of every token out.

Data flow: docs -> segments (sentences, or whole docs; whitespace tokens left out) -> batches
under a token budget -> ``ElmoModel`` (stateless: every segment starts from the initial state)
-> per batch (L+1, rows, longest, 2P) -> scattered back to one (L+1, n_tokens, 2P) array per doc.
"""

import os
from collections.abc import Callable, Sequence
from typing import Any, cast

import srsly
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, PyTorchGradScaler, torch2xp, xp2torch
from thinc.compat import has_torch_amp
from thinc.types import Floats3d, Floats4d

from hf_elmo import ElmoConfig, ElmoModel, batch_to_ids
from hf_elmo.messages import described, error_text, is_number
from hf_elmo.modeling_elmo import check_reads_char_ids

from .batching import Segment, doc_segments, token_budget_batches
from .call_stack import running_pipeline
from .config_errors import check_setting, config_error, refuse_setting, setting_path
from .doc_layers import BiLm
from .listener import load_weights_advice, replace_listener_cfg
from .loader import load_shipped_model, loader_name_advice
from .shim import ElmoShim, bilm_record, deserialize_elmo

Loader = Callable[[], ElmoModel]


def _one_torch_thread_after_fork() -> None:
    """A forked child runs torch on one thread: the parent's thread pool does not survive a
    fork, and a child using it hangs (``nlp.pipe(texts, n_process=2)``; PyTorch's DataLoader
    sets one thread in its workers for the same reason)."""
    torch.set_num_threads(1)


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_one_torch_thread_after_fork)


#: What ``grad_scaler_config`` may set (``PyTorchGradScaler``'s arguments).
GRAD_SCALER_SETTINGS = ("init_scale", "growth_factor", "backoff_factor", "growth_interval")


@registry.architectures("spacy-elmo.ElmoBiLm.v3")
def elmo_bilm_v3(
    frozen: bool = True,
    tokens_per_batch: int = 4096,
    loader: Loader | str | None = None,
    mixed_precision: bool = False,
    grad_scaler_config: dict[str, Any] | None = None,
) -> Model[list[Doc], list[Floats3d]]:
    """The ELMo biLM over docs, (L+1, n_tokens, 2P) per doc.

    Args:
        frozen: no gradients reach the biLM and it is never updated (the paper's setting);
            ``False`` fine-tunes it with the downstream losses (dropout as in its config).
        tokens_per_batch: most padded tokens (rows x longest segment) per biLM call, as
            ``elmo embed --tokens-per-batch`` batches (``token_budget`` in v1 and v2).
        loader: loads the weights when the model is initialised, if they are not there yet;
            without one (and without weights) the shipped model is loaded. The ``elmo``
            component uses it when ``[initialize.components.elmo]`` names no model, and refuses
            a model named in both places.
        mixed_precision: run the biLM under ``torch.autocast`` (float16) on a CUDA device;
            ignored on CPU, which always runs float32. The layers handed on are float32.
        grad_scaler_config: settings of Thinc's ``PyTorchGradScaler`` (``init_scale``,
            ``growth_factor``, ``backoff_factor``, ``growth_interval``) for fine-tuning in mixed
            precision; it is enabled when ``mixed_precision`` is and torch can use CUDA AMP
            (a machine without CUDA runs float32: there is nothing to scale).
    """
    return _elmo_bilm(
        "spacy-elmo.ElmoBiLm.v3",
        frozen,
        ("tokens_per_batch", tokens_per_batch),
        loader,
        mixed_precision,
        grad_scaler_config,
    )


@registry.architectures("spacy-elmo.ElmoBiLm.v2")
def elmo_bilm_v2(
    frozen: bool = True,
    token_budget: int = 4096,
    loader: Loader | str | None = None,
    mixed_precision: bool = False,
    grad_scaler_config: dict[str, Any] | None = None,
) -> Model[list[Doc], list[Floats3d]]:
    """``spacy-elmo.ElmoBiLm.v3`` with ``tokens_per_batch`` under its name before v3, ``token_budget``
    (the configs and packaged pipelines written before v3)."""
    return _elmo_bilm(
        "spacy-elmo.ElmoBiLm.v2", frozen, ("token_budget", token_budget), loader, mixed_precision, grad_scaler_config
    )


@registry.architectures("spacy-elmo.ElmoBiLm.v1")
def elmo_bilm_v1(
    frozen: bool = True, token_budget: int = 4096, loader: Loader | str | None = None
) -> Model[list[Doc], list[Floats3d]]:
    """``spacy-elmo.ElmoBiLm.v2`` in full precision (the configs written before v2)."""
    return _elmo_bilm("spacy-elmo.ElmoBiLm.v1", frozen, ("token_budget", token_budget), loader, False, None)


def _elmo_bilm(
    where: str,
    frozen: bool,
    tokens_per_batch: tuple[str, int],
    loader: Loader | str | None,
    mixed_precision: bool,
    grad_scaler_config: dict[str, Any] | None,
) -> Model[list[Doc], list[Floats3d]]:
    """The model of every version of ``spacy-elmo.ElmoBiLm`` (``where``), its settings checked in
    their names there; ``tokens_per_batch`` is (the name that version gives it, its value)."""
    if isinstance(loader, str):  # a biLM's name or folder, which the type lets through for this one line
        refuse_setting(where, "loader", loader_name_advice(loader))
    setting, budget = tokens_per_batch
    valid = is_number(budget, whole=True) and budget >= 1
    check_setting(valid, where, setting, f"must be a whole number >= 1 of padded tokens, got {described(budget)}")
    unknown = sorted(set(grad_scaler_config or {}) - set(GRAD_SCALER_SETTINGS))
    check_setting(not unknown, where, "grad_scaler_config", f"unknown {unknown}; use {', '.join(GRAD_SCALER_SETTINGS)}")
    for name, value in (grad_scaler_config or {}).items():
        steps = name == "growth_interval"
        number = is_number(value, whole=steps) and value > 0
        what = "a whole number of steps >= 1" if steps else "a finite number > 0"
        check_setting(number, where, f"grad_scaler_config.{name}", f"must be {what}, got {described(value)}")
    scaler = PyTorchGradScaler(enabled=mixed_precision and has_torch_amp, **(grad_scaler_config or {}))
    return Model(
        "elmo-bilm",
        bilm_forward,
        init=_init,
        shims=[ElmoShim(loader=loader, mixed_precision=mixed_precision, grad_scaler=scaler)],
        dims={"nO": None, "nL": None},
        attrs={"frozen": frozen, "tokens_per_batch": budget, "replace_listener_cfg": replace_listener_cfg},
    )


def get_elmo(model: Model) -> ElmoModel | None:
    """The ``ElmoModel`` inside an ``elmo-bilm`` Thinc model (``None`` before loading)."""
    return _shim(model).elmo


def bilm_of(model: Model) -> BiLm | None:
    """The biLM of an ``elmo-bilm`` Thinc model as the layers it computes record it (``ElmoShim.bilm``;
    ``None`` before loading)."""
    return _shim(model).bilm()


def model_loader(model: Model) -> Loader | None:
    """The ``loader`` an ``elmo-bilm`` Thinc model was given (``None``: none)."""
    return _shim(model).loader


class NotAnElmoModel(TypeError):
    """What a loader returned instead of an ``ElmoModel`` (``widths``): refused, as a loader that cannot load is,
    at its config setting (a ``TypeError`` from elsewhere in a loader of one's own keeps its traceback)."""


def widths(elmo: ElmoModel) -> dict[str, int]:
    """The widths an ``elmo-bilm`` Thinc model gets from ``elmo`` (``config_widths``); ``NotAnElmoModel``
    for anything else."""
    if not isinstance(elmo, ElmoModel):
        raise NotAnElmoModel(f"an ELMo loader must return an hf_elmo.ElmoModel, got {described(elmo)}")
    return config_widths(elmo.config)


def runnable_widths(elmo: ElmoModel, where: str) -> dict[str, int]:
    """The ``widths`` of ``elmo`` (``NotAnElmoModel`` first, for a loader's return that is no ElmoModel), unless
    it is a word-embedding baseline, which ``where`` cannot run: it reads word ids, not char ids
    (``check_reads_char_ids``, a ``ValueError`` naming its folder)."""
    dims = widths(elmo)
    check_reads_char_ids(elmo, where)
    return dims


def loaded_at_setting(loader: Loader, where: str, setting: list[str], title: str) -> ElmoModel:
    """``loader()``, which ``where`` can run (``runnable_widths``); a model that cannot be loaded or run (not
    found, unreadable, a bad config.json, a word-embedding baseline, no ElmoModel at all) is a
    ``ConfigValidationError`` titled ``title`` at the config setting ``setting`` (its path), which ``spacy
    train`` prints as one error line (the system's without its ``[Errno N]``: ``error_text``), not a traceback from
    deep in ``nlp.initialize``."""
    try:
        elmo = loader()
        runnable_widths(elmo, where)
    except (OSError, ValueError, NotAnElmoModel) as error:
        raise config_error(title, setting, error_text(error)) from error
    return elmo


def config_widths(config: ElmoConfig) -> dict[str, int]:
    """The widths of the biLM of ``config`` as an ``elmo-bilm`` Thinc model has them: ``nL`` = L+1 and ``nO`` = 2P."""
    return {"nL": config.n_layers + 1, "nO": config.output_dim}


def _shim_state(bytes_data: bytes) -> bytes:
    """The state of the ``ElmoShim`` in ``bytes_data`` (an ``elmo-bilm`` Thinc model's ``to_bytes``): the biLM as
    ``serialize_elmo`` wrote it."""
    (shim_bytes,) = srsly.msgpack_loads(bytes_data)["shims"][0]
    return srsly.msgpack_loads(shim_bytes)["state"]


def serialized_config(bytes_data: bytes) -> ElmoConfig | None:
    """The config of the biLM in ``bytes_data`` (an ``elmo-bilm`` Thinc model's ``to_bytes``; ``None``
    for a model without weights), read without loading it (``ElmoShim``'s bytes, ``serialize_elmo``)."""
    state = srsly.msgpack_loads(_shim_state(bytes_data))
    return ElmoConfig.from_dict(state["config"]) if state else None


def serialized_bilm(bytes_data: bytes) -> BiLm | None:
    """The biLM in ``bytes_data`` (as ``serialized_config`` reads it) as the layers it computes would record it
    (``bilm_record``), read without loading it into a model; ``None`` for a model without weights."""
    elmo = deserialize_elmo(None, _shim_state(bytes_data), torch.device("cpu"))
    return None if elmo is None else bilm_record(elmo)


def load_weights(model: Model, elmo: ElmoModel) -> None:
    """Put ``elmo`` into the Thinc model and set its ``widths``."""
    dims = widths(elmo)
    _shim(model).load(elmo)
    for dim, value in dims.items():
        model.set_dim(dim, value, force=True)


def missing_weights_loader(model: Model) -> Loader | None:
    """What initialising ``model`` loads: nothing (``None``) when it has weights, else its
    ``loader``, or the shipped model when it has none."""
    if get_elmo(model) is not None:
        return None
    return model_loader(model) or load_shipped_model


def _init(model: Model, X: list[Doc] | None = None, Y: None = None) -> None:
    """Load the weights unless they are there (``missing_weights_loader``). A model that cannot be loaded or
    run (a word-embedding baseline, say) is a ``ConfigValidationError`` at the ``loader`` setting
    (``loaded_at_setting``), as the elmo component's loaders are refused (a biLM in a component's own model,
    ``spacy-elmo.ElmoMix.v1``, was a traceback): at its path in the config of the component that holds the model,
    where ``nlp.initialize`` initialises one (``setting_path``)."""
    loader = missing_weights_loader(model)
    if loader is not None:
        title = "Cannot load the ELMo biLM of spacy-elmo.ElmoBiLm"
        title, setting = setting_path(title, "loader", _initialised_component_holding(model))
        load_weights(model, loaded_at_setting(loader, "spacy-elmo.ElmoBiLm", setting, title))


def _initialised_component_holding(model: Model) -> tuple[str, dict[str, Any]] | None:
    """The name and settings of the component whose model holds ``model``, of the pipeline that ``nlp.initialize``
    initialises up the call stack (``running_pipeline``); ``None``: none does (a component or model initialised
    alone)."""
    nlp = running_pipeline("initialize")
    if nlp is None:
        return None
    for name, component in nlp.pipeline:
        owned = getattr(component, "model", None)
        if isinstance(owned, Model) and any(node is model for node in owned.walk()):
            return name, nlp.config["components"][name]
    return None


def bilm_forward(model: Model, docs: list[Doc], is_train: bool) -> tuple[list[Floats3d], Callable]:
    elmo = get_elmo(model)
    if elmo is None:
        raise ValueError(
            f"the ELMo biLM has no weights yet: {load_weights_advice('NAME')}, NAME being the component that holds "
            "this biLM (the elmo component, or one whose own model holds it through spacy-elmo.ElmoMix.v1)"
        )
    fine_tune = is_train and not model.attrs["frozen"]
    n_layers, width = model.get_dim("nL"), model.get_dim("nO")
    outputs = [model.ops.alloc3f(n_layers, len(doc), width) for doc in docs]
    shim = _shim(model)
    segments = doc_segments(docs, shim)
    graph: list[tuple[torch.Tensor, list[Segment]]] = []
    for batch in token_budget_batches([len(s.words) for s in segments], model.attrs["tokens_per_batch"]):
        rows = [segments[i] for i in batch]
        with shim.autocast():
            layers = _run(elmo, rows, fine_tune)
        values = cast(Floats4d, torch2xp(layers.detach()))
        for row, segment in enumerate(rows):
            outputs[segment.doc][:, list(segment.token_indices)] = values[:, row, : len(segment.words)]
        if fine_tune:
            graph.append((layers, rows))

    def backprop(d_outputs: list[Floats3d]) -> list[Doc]:
        grads = []
        for layers, rows in graph:
            grad = model.ops.alloc4f(*layers.shape)
            for row, segment in enumerate(rows):
                grad[:, row, : len(segment.words)] = d_outputs[segment.doc][:, list(segment.token_indices)]
            grads.append(xp2torch(grad, device=layers.device).to(layers.dtype))
        if graph:
            shim.backward([layers for layers, _ in graph], grads)
        return []

    return outputs, backprop


def is_elmo_bilm(model: Model) -> bool:
    """Whether ``model`` is an ``elmo-bilm`` Thinc model (``spacy-elmo.ElmoBiLm``)."""
    return bool(model.shims) and isinstance(model.shims[0], ElmoShim)


def _shim(model: Model) -> ElmoShim:
    """The ``ElmoShim`` that holds the biLM of an ``elmo-bilm`` Thinc model."""
    if not is_elmo_bilm(model):
        raise TypeError(f"expected an elmo-bilm Thinc model (spacy-elmo.ElmoBiLm), got {model.name!r}")
    return model.shims[0]  # type: ignore[return-value]  # is_elmo_bilm: an ElmoShim


def _run(elmo: ElmoModel, rows: Sequence[Segment], fine_tune: bool) -> torch.Tensor:
    """The L+1 layers (L+1, B, T, 2P) of one batch; with gradients only when fine-tuning."""
    device = next(elmo.parameters()).device
    ids = batch_to_ids([list(s.words) for s in rows], elmo.config.max_characters_per_token, max_token_chars=None).to(
        device
    )
    elmo.train(fine_tune)
    with torch.set_grad_enabled(fine_tune):
        hidden = elmo(input_ids=ids, stateful=False, return_dict=True).hidden_states
    return torch.stack(hidden)
