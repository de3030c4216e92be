"""An ELMo model's weights as ``save_pretrained`` writes them and ``from_pretrained`` takes them:
the error for a folder that is no loadable model (``InvalidModelError``), the dtypes they may be
stored in (``STORAGE_DTYPES``, ``stored_in``), the names of their files (``weights_file``), the
checks of what was loaded (``check_finite_weights``, ``not_float_weight``; ``check_loaded_weights``,
which reads the model class's own parts, is ``modeling_elmo``'s), a model whose weights were never
loaded (``weights_never_loaded``, ``said_if_never_loaded``), and what saving and loading keep quiet
or clean up (``no_weight_progress_bars``, ``load_report_held``, ``is_weights_file``).

This file imports only torch and transformers, so that a saved model folder carries it with
``modeling_elmo.py`` for ``trust_remote_code=True``.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import torch
from torch import nn
from transformers.utils import SAFE_WEIGHTS_INDEX_NAME, SAFE_WEIGHTS_NAME
from transformers.utils import logging as hf_logging

_Method = TypeVar("_Method", bound=Callable[..., Any])


class InvalidModelError(OSError):
    """The name leads to files, but they are not a loadable ELMo model (a missing or corrupt file,
    weights that do not fit the config). An ``OSError``, as transformers' own loading errors are;
    ``hf_elmo.loading`` raises it too."""


#: The dtypes ``save_pretrained(storage_dtype=...)`` stores the floating-point weights in.
STORAGE_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
#: The top-level parts of the biLM's state (``ElmoModel``'s, ``elmo.`` in the models around it).
BILM_PARTS = ("char_cnn", "word_embedding", "bilm", "warm_h", "warm_c")
#: The biLM's warm state (zeros until ``warm_up``): a folder may lack it, and then starts from zeros.
WARM_STATE = ("warm_h", "warm_c")


def stored_in(dtype: torch.dtype, name: str, tensor: torch.Tensor) -> torch.Tensor:
    """The floating-point ``tensor`` (the model's state ``name``) in ``dtype``, as ``save_pretrained(storage_dtype=...)``
    stores it; a one-line ``ValueError`` naming it where a finite value would be inf there (float16 holds at most
    65504): the folder would not load (``check_finite_weights``)."""
    stored = tensor.to(dtype)
    overflows = torch.isinf(stored) & torch.isfinite(tensor)
    if overflows.any():
        short = str(dtype).removeprefix("torch.")
        raise ValueError(
            f"{name} holds {float(tensor[overflows].abs().max()):.6g}, beyond the largest {short} "
            f"({torch.finfo(dtype).max:.6g}): stored as {short} it would be inf; store the weights as bfloat16 or "
            "float32 (storage_dtype, elmo pretrain --storage-dtype)"
        )
    return stored


def weights_file(name: str, variant: str | None) -> str:
    """The name transformers gives weights file ``name`` (``SAFE_WEIGHTS_NAME``, ``SAFE_WEIGHTS_INDEX_NAME``)
    of ``variant``: ``model.safetensors`` -> ``model.fp16.safetensors``, ``model.safetensors.index.json``
    -> ``model.safetensors.index.fp16.json``."""
    if variant is None:
        return name
    stem, extension = name.rsplit(".", 1)
    return f"{stem}.{variant}.{extension}"


def is_weights_file(name: str, variant: str | None) -> bool:
    """Whether ``name`` is a file of the weights that ``save_pretrained`` writes of ``variant``: the single file, the
    shard index or a shard (``model-00001-of-00002.safetensors``, ``model.fp16-00001-of-00002.safetensors``). A save
    replaces all of an earlier save's (``configuration_elmo.saved_aside``): transformers removed an earlier save's
    shards, but not its ``model.safetensors``, which loading reads before the new shards' index, so re-saving a
    folder with ``max_shard_size`` kept its old weights."""
    single = weights_file(SAFE_WEIGHTS_NAME, variant)
    return name in (single, weights_file(SAFE_WEIGHTS_INDEX_NAME, variant)) or (
        re.fullmatch(re.escape(single.removesuffix(".safetensors")) + r"-\d{5}-of-\d{5}\.safetensors", name) is not None
    )


def saved_code(model_class: type) -> set[str]:
    """The modules whose files ``save_pretrained`` copies for ``model_class`` (its own and, through
    relative imports, its siblings'): the ones a saved folder's ``auto_map`` may name."""
    from transformers.dynamic_module_utils import get_relative_import_files

    module_file = sys.modules[model_class.__module__].__file__
    if module_file is None:
        return set()
    return {Path(module_file).stem} | {Path(file).stem for file in get_relative_import_files(module_file)}


def not_float_weight(
    where: str | os.PathLike, key: str, dtype: str, what_to_do: str = "re-create or re-download it"
) -> InvalidModelError:
    """The one-line error for weight ``key`` of ``where`` (a weights file, or the ``state_dict`` passed
    to ``from_pretrained``) stored as ``dtype``, not floating point, which transformers would load as
    rounded numbers, silently."""
    return InvalidModelError(
        f"{os.fspath(where)}: weight {key} is stored as {dtype}, not as floating-point numbers (ELMo's weights are "
        f"float32, float16 or bfloat16); {what_to_do}"
    )


def weights_source(source: str | os.PathLike | None) -> str:
    """What ``from_pretrained`` read weights from, for its errors: the name, or the ``state_dict`` (``None``)."""
    return "the state_dict passed to from_pretrained" if source is None else os.fspath(source)


def check_finite_weights(model: nn.Module, source: str | os.PathLike | None) -> None:
    """Refuse, with one line naming the weight and the file, weights that hold NaN or infinite
    values: they would make every output NaN, silently.

    One sum per tensor, a single pass over its values: a
    NaN or infinity makes the sum non-finite, and only then are the values counted (a sum of finite
    values that overflowed counts none, and passes). Tensors without data (``device_map`` offload) are skipped.
    """
    for key, tensor in model.state_dict().items():
        if not tensor.is_floating_point() or tensor.device.type == "meta" or torch.isfinite(tensor.sum()):
            continue
        bad = tensor.numel() - int(torch.isfinite(tensor).sum())
        if bad:
            weights = None if source is None else Path(os.fspath(source)) / SAFE_WEIGHTS_NAME
            where = weights if weights is not None and weights.is_file() else weights_source(source)
            raise InvalidModelError(
                f"{where}: weight {key} holds {bad:,} NaN or infinite values of {tensor.numel():,} (a damaged file, "
                "or a model saved after its training diverged); re-create or re-download it"
            )


@contextmanager
def load_report_held() -> Iterator[None]:
    """Hold what transformers logs while loading (its load report) until the block ends: a folder
    that ``check_loaded_weights`` refuses gets its one-line error alone, any other the report as
    before (e.g. a task head's new layers)."""
    logger = logging.getLogger("transformers.modeling_utils")
    held: list[logging.LogRecord] = []

    def hold(record: logging.LogRecord) -> bool:
        held.append(record)
        return False

    logger.addFilter(hold)
    try:
        yield
    except InvalidModelError:
        held.clear()  # the error names every weight that does not fit
        raise
    finally:
        logger.removeFilter(hold)
        for record in held:
            logger.handle(record)


@contextmanager
def no_weight_progress_bars() -> Iterator[None]:
    """Hide transformers' "Loading weights" / "Writing model shards" bars: an ELMo model loads
    and saves in about a second, and the bars would clutter every command and spaCy's tables."""
    if not hf_logging.is_progress_bar_enabled():
        yield
        return
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()


def weights_never_loaded(model: nn.Module) -> bool:
    """Whether ``model`` holds weights on the meta device (shapes without data) that nothing loads
    before they are used: built under ``init_empty_weights`` or ``from_pretrained(device_map="meta")``.
    Not so for a model that accelerate offloads (``device_map`` with ``"disk"``), whose hooks bring
    each part's weights in for its call."""
    return any(p.device.type == "meta" for p in model.parameters()) and not any(
        hasattr(module, "_hf_hook") for module in model.modules()
    )


def said_if_never_loaded(method: _Method) -> _Method:
    """``method`` of a model, whose error, when the model's weights were never loaded
    (``weights_never_loaded``), is one line saying so and how to load them, not torch's about the
    meta device from deep inside; any other error is left as it is."""

    @functools.wraps(method)
    def checked(self: nn.Module, *args: Any, **kwargs: Any) -> Any:
        if torch.compiler.is_compiling() or torch.compiler.is_exporting():
            return method(self, *args, **kwargs)
        try:
            return method(self, *args, **kwargs)
        except Exception:
            if not weights_never_loaded(self):
                raise
            raise never_loaded_error() from None

    return cast(_Method, checked)


def never_loaded_error() -> RuntimeError:
    """The one-line error for using a model whose weights were never loaded (``weights_never_loaded``)."""
    return RuntimeError(
        "the model's weights were never loaded: they are on the meta device (shapes without data), as "
        "init_empty_weights or from_pretrained(device_map='meta') leaves them; load the model with "
        "from_pretrained(name_or_path) (device_map='cpu' or 'cuda'), or its weights with "
        "model.load_state_dict(state_dict, assign=True)"
    )
