"""Conversion of the original AllenNLP / bilm-tf ``options.json`` + ``weights.hdf5`` files.

``elmo_state_dict`` maps the hdf5 datasets (layout in ``../shared/docs/elmo-format.md``) onto
``ElmoModel``'s parameters, checking every dataset's presence and shape against the options.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, Iterator, Tuple

import numpy as np
import torch

from .configuration_elmo import ElmoConfig
from .fileio import PathLike

_LSTM = "RNN_{d}/RNN/MultiRNNCell/Cell{l}/LSTMCell/{name}"


class ElmoWeightsError(ValueError):
    """A weight file that does not match its options (missing dataset, wrong shape, unreadable)."""


#: The integer fields of ``options.json`` (key paths) and the least value each may take.
def read_options(options_path: PathLike) -> ElmoConfig:
    """Parse an ``options.json`` into an ``ElmoConfig`` (clear errors for bad JSON, keys or fields)."""
    path = Path(options_path)
    if path.is_dir():
        raise ValueError(f"the options path {path} is a folder; name its options.json")
    try:
        options = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"options file not found: {options_path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{options_path} is not valid JSON: {err}") from None
    if not isinstance(options, dict):
        raise ValueError(f"{options_path}: expected a JSON object, got {type(options).__name__}")
    try:  # ElmoConfig checks every field, naming its options key
        return ElmoConfig.from_allennlp_options(options)
    except ValueError as err:
        raise ValueError(f"{options_path}: {err}") from None


def expected_shapes(config: ElmoConfig) -> Iterator[Tuple[str, Tuple[int, ...]]]:
    """The (dataset name, shape) pairs a weight file for ``config`` must hold."""
    d, f, p, c = config.char_embedding_dim, config.n_filters, config.projection_dim, config.lstm_dim
    for i, (width, channels) in enumerate(config.filters):
        yield f"CNN/W_cnn_{i}", (1, width, d, channels)
        yield f"CNN/b_cnn_{i}", (channels,)
    for k in range(config.n_highway):
        for branch in ("transform", "carry"):
            yield f"CNN_high_{k}/W_{branch}", (f, f)
            yield f"CNN_high_{k}/b_{branch}", (f,)
    yield "CNN_proj/W_proj", (f, p)
    yield "CNN_proj/b_proj", (p,)
    for direction in (0, 1):
        for layer in range(config.n_layers):
            yield _LSTM.format(d=direction, l=layer, name="W_0"), (2 * p, 4 * c)
            yield _LSTM.format(d=direction, l=layer, name="B"), (4 * c,)
            yield _LSTM.format(d=direction, l=layer, name="W_P_0"), (c, p)


def _read_datasets(weights_path: PathLike, config: ElmoConfig) -> Dict[str, np.ndarray]:
    import h5py

    path = Path(weights_path)
    if path.is_dir():
        raise ValueError(f"the weight path {path} is a folder; name the .hdf5 weight file in it")
    if not path.is_file():
        raise FileNotFoundError(f"weight file not found: {path}")
    try:
        handle = h5py.File(path, "r")
    except OSError as err:
        raise ElmoWeightsError(f"{path} is not a readable HDF5 file (truncated or corrupt?): {err}") from None
    arrays: Dict[str, np.ndarray] = {}
    problems = []
    with handle:
        for name, shape in expected_shapes(config):
            if name not in handle:
                problems.append(f"missing dataset {name!r} (expected shape {shape})")
                continue
            dataset = handle[name]
            if tuple(dataset.shape) != shape:
                problems.append(f"dataset {name!r} has shape {tuple(dataset.shape)}, options imply {shape}")
                continue
            try:
                arrays[name] = np.asarray(dataset[...], dtype=np.float32)
            except OSError as err:
                problems.append(f"dataset {name!r} cannot be read (truncated file?): {err}")
                continue
            problems.extend(_non_finite(name, arrays[name]))
        embed_rows = config.n_characters - 1 if config.n_characters == 262 else config.n_characters
        if "char_embed" not in handle:
            problems.append(f"missing dataset 'char_embed' (expected shape ({embed_rows}, {config.char_embedding_dim}))")
        else:
            shape = tuple(handle["char_embed"].shape)
            if shape not in ((261, config.char_embedding_dim), (262, config.char_embedding_dim)):
                problems.append(
                    f"dataset 'char_embed' has shape {shape}, expected (261, {config.char_embedding_dim})"
                )
            else:
                try:
                    arrays["char_embed"] = np.asarray(handle["char_embed"][...], dtype=np.float32)
                    problems.extend(_non_finite("char_embed", arrays["char_embed"]))
                except OSError as err:
                    problems.append(f"dataset 'char_embed' cannot be read (truncated file?): {err}")
    if problems:
        raise ElmoWeightsError(f"{path} does not match its options:\n  " + "\n  ".join(problems))
    return arrays


def _non_finite(name: str, array: np.ndarray) -> Iterator[str]:
    """A problem line when ``array`` holds NaN or infinite values (as float32)."""
    bad = int(array.size - np.count_nonzero(np.isfinite(array)))
    if bad:
        yield f"dataset {name!r} holds {bad:,} NaN or infinite values of {array.size:,}"


def elmo_state_dict(weights_path: PathLike, config: ElmoConfig) -> Dict[str, torch.Tensor]:
    """Read ``weights_path`` and return ``ElmoModel`` parameters (names without a prefix)."""
    w = _read_datasets(weights_path, config)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    state: Dict[str, torch.Tensor] = {}
    embed = w["char_embed"]
    if embed.shape[0] == 261:  # no padding row in the file: id 0 is padding
        embed = np.concatenate([np.zeros((1, embed.shape[1]), np.float32), embed])
    state["char_cnn.char_embedding.weight"] = t(embed)
    for i in range(len(config.filters)):
        state[f"char_cnn.convolutions.{i}.weight"] = t(w[f"CNN/W_cnn_{i}"][0].transpose(2, 1, 0))
        state[f"char_cnn.convolutions.{i}.bias"] = t(w[f"CNN/b_cnn_{i}"])
    for k in range(config.n_highway):
        for ours, theirs in (("transform", "transform"), ("gate", "carry")):
            state[f"char_cnn.highways.{k}.{ours}.weight"] = t(w[f"CNN_high_{k}/W_{theirs}"].T)
            state[f"char_cnn.highways.{k}.{ours}.bias"] = t(w[f"CNN_high_{k}/b_{theirs}"])
    state["char_cnn.projection.weight"] = t(w["CNN_proj/W_proj"].T)
    state["char_cnn.projection.bias"] = t(w["CNN_proj/b_proj"])
    p = config.projection_dim
    for direction, prefix in ((0, "bilm.forward_layers"), (1, "bilm.backward_layers")):
        for layer in range(config.n_layers):
            name = lambda n: _LSTM.format(d=direction, l=layer, name=n)  # noqa: E731
            kernel = w[name("W_0")]
            state[f"{prefix}.{layer}.input_linear.weight"] = t(kernel[:p].T)
            state[f"{prefix}.{layer}.input_linear.bias"] = t(w[name("B")])
            state[f"{prefix}.{layer}.state_linear.weight"] = t(kernel[p:].T)
            state[f"{prefix}.{layer}.projection.weight"] = t(w[name("W_P_0")].T)
    return state


def save_allennlp(model, options_path: PathLike, weights_path: PathLike) -> None:
    """Write ``model`` (an ``ElmoModel``) in the original format: the inverse of ``load_allennlp``.

    The files load in AllenNLP and bilm-tf. The warm state, if any, is not part of that format.
    """
    import h5py

    config = model.config
    state = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}
    prefix = "" if "char_cnn.projection.weight" in state else f"{model.base_model_prefix}."
    s = lambda name: state[prefix + name]  # noqa: E731
    datasets = {"char_embed": s("char_cnn.char_embedding.weight")[1:]}
    for i in range(len(config.filters)):
        datasets[f"CNN/W_cnn_{i}"] = s(f"char_cnn.convolutions.{i}.weight").transpose(2, 1, 0)[None]
        datasets[f"CNN/b_cnn_{i}"] = s(f"char_cnn.convolutions.{i}.bias")
    for k in range(config.n_highway):
        for ours, theirs in (("transform", "transform"), ("gate", "carry")):
            datasets[f"CNN_high_{k}/W_{theirs}"] = s(f"char_cnn.highways.{k}.{ours}.weight").T
            datasets[f"CNN_high_{k}/b_{theirs}"] = s(f"char_cnn.highways.{k}.{ours}.bias")
    datasets["CNN_proj/W_proj"] = s("char_cnn.projection.weight").T
    datasets["CNN_proj/b_proj"] = s("char_cnn.projection.bias")
    for direction, layers in ((0, "bilm.forward_layers"), (1, "bilm.backward_layers")):
        for layer in range(config.n_layers):
            name = lambda n: _LSTM.format(d=direction, l=layer, name=n)  # noqa: E731
            datasets[name("W_0")] = np.concatenate(
                [s(f"{layers}.{layer}.input_linear.weight").T, s(f"{layers}.{layer}.state_linear.weight").T]
            )
            datasets[name("B")] = s(f"{layers}.{layer}.input_linear.bias")
            datasets[name("W_P_0")] = s(f"{layers}.{layer}.projection.weight").T
    Path(options_path).write_text(json.dumps(config.to_allennlp_options(), indent=2), encoding="utf-8")
    with h5py.File(weights_path, "w") as handle:
        for key, value in datasets.items():
            handle.create_dataset(key, data=np.ascontiguousarray(value, dtype=np.float32))
