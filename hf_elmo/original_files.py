"""The original files (bilm-tf's / AllenNLP's ``options.json`` + weights ``.hdf5``): what they are
named, where they are in a folder, and the models built from them.

- naming: ``OPTIONS_NAMES`` and ``NOT_WEIGHTS_NAMES`` (glob patterns), ``is_options_name``,
  ``is_weights_name``, ``options_name`` (which of a folder's or an archive folder's files is the
  options file), ``original_options_file`` and ``find_original_files`` (a folder's pair). The
  archive reader (``hf_elmo.archives``), the Hub fetching (``hf_elmo.hub``) and the resolver
  (``hf_elmo.loading``) pick the files by these names;
- building: ``original_config`` (the options as an ``ElmoConfig``), ``converted_config`` (the
  ``config.json`` a conversion writes, without reading the weights), ``load_allennlp`` (the biLM)
  and ``load_allennlp_with_softmax`` (the LM with a softmax dump), built in float32 whatever torch's
  default dtype (``float32_default``), as ``from_pretrained`` loads. The weights themselves come from
  the pure converter ``hf_elmo.convert``.

The resolver (``hf_elmo.loading``) imports these; this module imports no resolver, archive or Hub
code.
"""

from __future__ import annotations

import fnmatch
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar, overload

import torch
from transformers.utils import CONFIG_NAME

from .configuration_elmo import WHITESPACE, ElmoConfig, check_size
from .convert import (
    ElmoWeightsError,
    elmo_state_dict,
    foreign_data,
    no_shape,
    read_options,
    stored_shape,
    stored_values,
)
from .elmo_weights import InvalidModelError
from .fileio import PathLike
from .messages import error_reason
from .modeling_elmo import ElmoModel, ElmoPreTrainedModel
from .modeling_lm import ElmoForBidirectionalLM

_Model = TypeVar("_Model", bound=ElmoPreTrainedModel)
_LM = TypeVar("_LM", bound=ElmoForBidirectionalLM)

#: The names of an options file of the original files (``original_options_file``), as glob patterns.
OPTIONS_NAMES = ["options.json", "*_options.json"]


#: The ``.hdf5`` files beside the original files that are not the biLM's weights, as glob patterns: the
#: LM's softmax and the word embeddings dumps (hundreds of MB in a released archive), which loading never
#: reads, so a folder's are passed over (``find_original_files``), an archive's never extracted
#: (``hf_elmo.archives.extract_original_files``) and a Hub repository's never fetched (``hf_elmo.loading``).
NOT_WEIGHTS_NAMES = ["*softmax*", "*embeddings*"]


def is_options_name(name: str) -> bool:
    """Whether a file's base name is an options file's (``OPTIONS_NAMES``)."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in OPTIONS_NAMES)


def is_weights_name(name: str) -> bool:
    """Whether a file's base name may be the biLM's weights: an ``.hdf5`` none of ``NOT_WEIGHTS_NAMES``."""
    return name.endswith(".hdf5") and not any(fnmatch.fnmatchcase(name, pattern) for pattern in NOT_WEIGHTS_NAMES)


def original_options_file(folder: Path) -> Path | None:
    """The options file of a folder of the original files (``options_name``), ``None`` when it holds none."""
    name = options_name(
        [path.name for path in folder.iterdir() if is_options_name(path.name) and path.is_file()], str(folder)
    )
    return None if name is None else folder / name


def options_name(names: Sequence[str], where: str) -> str | None:
    """Which of the file names ``names`` of ``where`` (a folder, or one in an archive) is the options
    file: ``options.json`` (bilm-tf's, the NLPL archives'), or else the one ``*_options.json``, as
    AllenNLP's released files are named (``elmo_2x4096_512_2048cnn_2xhighway_options.json`` beside
    ``..._weights.hdf5``); ``None`` for neither. Several ``*_options.json`` (several models' files
    in one place) are an ``InvalidModelError`` naming ``where`` and them."""
    if OPTIONS_NAMES[0] in names:
        return OPTIONS_NAMES[0]
    named = sorted(name for name in names if is_options_name(name))
    if len(named) > 1:
        raise InvalidModelError(
            f"{where} holds the options files of several models {named}: keep one model's files in a folder, or "
            "name both files (ElmoModel.from_allennlp(OPTIONS, WEIGHTS), Elmo(OPTIONS, WEIGHTS, ...), elmo convert "
            "OPTIONS WEIGHTS OUT)"
        )
    return named[0] if named else None


def find_original_files(folder: PathLike) -> tuple[Path, Path]:
    """The options file (``original_options_file``) and the single ``*.hdf5`` weight file of an
    original-format folder."""
    folder = Path(folder)
    options = original_options_file(folder)
    candidates = sorted(p for p in folder.glob("*.hdf5") if is_weights_name(p.name))
    if options is None or not candidates:
        raise FileNotFoundError(f"{folder} holds no options.json + *.hdf5 pair")
    if len(candidates) > 1:
        preferred = [p for p in candidates if "weights" in p.name]
        if len(preferred) != 1:
            raise ValueError(
                f"{folder} holds several weight files {[p.name for p in candidates]}, and which one is the model's is "
                "not known: keep one in the folder, or convert the pair you mean with elmo convert OPTIONS WEIGHTS "
                "OUTPUT_DIR (ElmoModel.from_allennlp(options, weights))"
            )
        candidates = preferred
    return options, candidates[0]


@contextmanager
def float32_default() -> Iterator[None]:
    """torch's default dtype float32 within: a model built from the original files is float32, as
    ``from_pretrained`` loads one unless given a ``dtype`` (README, "dtype"), even after
    ``torch.set_default_dtype(torch.float64)``."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float32)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def original_config(options_path: PathLike) -> ElmoConfig:
    """The config of a model converted from the original files: their ``options.json``, with the
    padding row of the char embedding (``n_characters`` 262) and the released models'
    whitespace-split text (``pre_tokenizer``)."""
    config = read_options(options_path)
    config.n_characters = 262
    config.pre_tokenizer = WHITESPACE
    return config


def converted_config(options_path: PathLike) -> ElmoConfig:
    """The ``config.json`` that converting the original files writes (``original_config`` with what
    ``save_pretrained`` adds: ``architectures``, ``dtype``, ``auto_map``), without reading their
    weights: the model is built on the meta device and saved without its state."""
    with torch.device("meta"), float32_default():
        model = ElmoModel(original_config(options_path))
    with tempfile.TemporaryDirectory(prefix="hf-elmo-") as folder:
        model.save_pretrained(folder, state_dict={})
        return ElmoConfig.from_json_file(Path(folder) / CONFIG_NAME)


@overload
def load_allennlp(options_path: PathLike, weights_path: PathLike, model_class: None = None) -> ElmoModel: ...
@overload
def load_allennlp(options_path: PathLike, weights_path: PathLike, model_class: type[_Model]) -> _Model: ...
def load_allennlp(
    options_path: PathLike, weights_path: PathLike, model_class: type[ElmoPreTrainedModel] | None = None
) -> ElmoPreTrainedModel:
    """Build an ``ElmoModel`` (or ``model_class``) from the original options and weight files."""
    model_class = model_class or ElmoModel
    config = original_config(options_path)
    state = elmo_state_dict(weights_path, config)
    with float32_default():
        model = model_class(config)
    _check_converted(*model.load_state_dict(state, strict=False))
    model.eval()
    return model


def load_allennlp_with_softmax(
    model_class: type[_LM], options_path: PathLike, weights_path: PathLike, softmax_path: PathLike
) -> _LM:
    """``model_class`` (``ElmoForBidirectionalLM``) from the original biLM files plus a softmax dump
    (hdf5 ``softmax/W`` (V, P), ``softmax/b`` (V,), read as float32 and refused, naming the file and
    dataset, where they are another file's, do not fit the options, do not store the values their
    shapes declare (never written; or a bomb: a softmax/W compressed beyond ``MAX_INFLATION``, its
    words being the file's to declare) or hold NaN or infinite values)."""
    import h5py

    config = original_config(options_path)
    try:
        with h5py.File(softmax_path, "r") as handle:
            foreign = foreign_data(handle, "softmax/W") or foreign_data(handle, "softmax/b")
            if foreign:
                raise ElmoWeightsError(f"{softmax_path}: {foreign}")
            weight_shape, bias_shape = stored_shape(handle["softmax/W"]), stored_shape(handle["softmax/b"])
            if weight_shape is None or bias_shape is None:
                raise ElmoWeightsError(
                    f"{softmax_path}: {no_shape('softmax/W' if weight_shape is None else 'softmax/b')}"
                )
            # before reading the gigabytes a header may claim
            _check_softmax_shapes(softmax_path, weight_shape, bias_shape, config)
            # the number of words is the file's to declare (softmax/b's is softmax/W's, and a P-th of its size)
            values = [stored_values("softmax/W", handle["softmax/W"], bounded=False)]
            values.append(stored_values("softmax/b", handle["softmax/b"]))
    except FileNotFoundError:
        raise FileNotFoundError(f"softmax file not found: {softmax_path}") from None
    except (OSError, KeyError) as err:
        raise ElmoWeightsError(
            f"{softmax_path} holds no readable softmax/W and softmax/b: {error_reason(err)}"
        ) from None
    problems = [problem for _, found in values for problem in found]
    if problems:
        raise ElmoWeightsError(f"{softmax_path}: {'; '.join(problems)}")
    weight, bias = (torch.from_numpy(array) for array, _ in values if array is not None)
    state = elmo_state_dict(weights_path, config)
    config = ElmoConfig.from_dict({**config.to_dict(), "vocab_size": weight.shape[0], "softmax": "full"})
    with float32_default():
        model = model_class(config)
    _check_converted(*model.elmo.load_state_dict(state, strict=False))
    with torch.no_grad():
        model.softmax.weight.copy_(weight)
        model.softmax.bias.copy_(bias)
    return model.eval()


def _check_converted(missing: Sequence[str], unexpected: Sequence[str]) -> None:
    """Raise where the converted state (``elmo_state_dict``) and the model's parameters differ other
    than by the warm state (``warm_h``, ``warm_c``: zeros until ``warm_up``, never in the original
    files): a bug in this converter, never the user's file."""
    missing = [k for k in missing if not k.endswith(("warm_h", "warm_c"))]
    if missing or unexpected:
        raise RuntimeError(f"converter mismatch: missing {missing}, unexpected {unexpected}")


def _check_softmax_shapes(
    softmax_path: PathLike, weight: tuple[int, ...], bias: tuple[int, ...], config: ElmoConfig
) -> None:
    """Refuse a softmax whose ``softmax/W`` (V, P) and ``softmax/b`` (V,) shapes do not fit the
    options' ``projection_dim``, or whose V is outside ``vocab_size``'s bounds, naming the file."""
    if len(weight) != 2 or weight[1] != config.projection_dim or bias != weight[:1]:
        raise ElmoWeightsError(
            f"{softmax_path}: softmax/W {weight} and softmax/b {bias} do not fit projection_dim {config.projection_dim}"
        )
    try:
        check_size("vocab_size", weight[0], where="")
    except ValueError as err:
        raise ElmoWeightsError(f"{softmax_path}: softmax/W has {weight[0]:,} rows (words): {err}") from None
