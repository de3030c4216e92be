"""The original AllenNLP / bilm-tf format <-> ``ElmoModel``'s state dict, in both directions.

``weight_table(config)`` is the one description of the format (layout in
``../shared/docs/elmo-format.md``): a row per parameter of ours, naming the hdf5 dataset it comes
from, the dataset's shape for the options, and the transform each way. ``elmo_state_dict`` reads
a weight file through it (checking every dataset's presence, shape and values against the
options, and that the file stores the numbers each shape declares: ``stored_values``);
``allennlp_datasets`` and ``save_allennlp`` write one through the inverse transforms.
``read_options`` parses ``options.json``.

What the table encodes: the char embedding has no padding row in the file (ours adds row 0 for
id 0); convolution kernels are (1, width, D, channels) there, (channels, D, width) in
``nn.Conv1d``; dense kernels are (in, out) there, (out, in) in ``nn.Linear``; the highway gate is
stored as ``W_carry``; an LSTM's ``W_0`` holds rows [input; previous h], which are our
``input_linear`` and ``state_linear``. The gate blocks keep the original order i, j, f, o, and
what the file does not store (the forget bias +1, the cell and projection clips, from the
options) is the model's, not the converter's.

This module imports no model class: building models from the files is ``hf_elmo.original_files``'.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .configuration_elmo import ElmoConfig, json_of
from .fileio import (
    HDF5_DATASET_BYTES,
    HDF5_FILE_BYTES,
    PathLike,
    atomic_file,
    check_file_size_limit,
    check_input_names_a_file,
    check_locked_output,
    check_names_a_file,
    ensure_free_space,
    folder_for_the_run,
    remove_stale_temporaries,
    sole_writer,
    write_text_atomic,
)
from .messages import described, error_reason, some_of

Transform = Callable[[np.ndarray], np.ndarray]


class ElmoWeightsError(ValueError):
    """A weight file that does not match its options (missing dataset, wrong shape, unreadable), or
    an AllenNLP ``Elmo``'s ``state_dict`` that does not fit the ``hf_elmo.Elmo`` it is loaded into."""

    #: Python 3.11's notes (``add_note``), which a traceback shows below the message: every problem of a weight
    #: file, where the message names the first few; declared, and set directly, as Python 3.10 has no ``add_note``.
    __notes__: list[str]


@dataclass(frozen=True)
class WeightMapping:
    """One row of the conversion table.

    Attributes:
        ours: the parameter's key in ``ElmoModel``'s state dict.
        theirs: the hdf5 dataset it is stored in.
        shapes: the dataset's shapes the options allow; the first is the one written.
        to_ours: dataset (float32) -> our parameter.
        to_theirs: our parameter -> the dataset, or, where several parameters share a dataset,
            their block of its rows; the blocks are stacked on axis 0 in table order.
    """

    ours: str
    theirs: str
    shapes: tuple[tuple[int, ...], ...]
    to_ours: Transform
    to_theirs: Transform


def unchanged(array: np.ndarray) -> np.ndarray:
    """The identity transform (a parameter stored as it is)."""
    return array


def _transposed(array: np.ndarray) -> np.ndarray:
    return array.T


def _with_padding_row(embed: np.ndarray) -> np.ndarray:
    """File rows for ids 1..261 -> (262, D) with a zero row for padding id 0, as AllenNLP and
    bilm-tf read ``char_embed``: file row k - 1 is id k. A file of 262 rows (trained with
    ``n_characters`` 262) keeps its last row there too, where no id reaches it; it is left out."""
    return np.concatenate([np.zeros((1, embed.shape[1]), np.float32), embed[:261]])


def _without_padding_row(embed: np.ndarray) -> np.ndarray:
    return embed[1:]


def _conv_to_ours(kernel: np.ndarray) -> np.ndarray:
    return kernel[0].transpose(2, 1, 0)  # (1, width, D, channels) -> (channels, D, width)


def _conv_to_theirs(weight: np.ndarray) -> np.ndarray:
    return weight.transpose(2, 1, 0)[None]


def _rows_transposed(start: int, stop: int) -> Transform:
    """A block of a dataset's rows, transposed (one of the parameters that share ``W_0``)."""
    return lambda kernel: kernel[start:stop].T


def weight_table(config: ElmoConfig) -> list[WeightMapping]:
    """Every parameter of an ``ElmoModel`` for ``config`` (the warm state aside, which the format
    does not hold) and where the original files keep it."""
    d, f, p, c = config.char_embedding_dim, config.n_filters, config.projection_dim, config.lstm_dim
    table = [
        WeightMapping(
            "char_cnn.char_embedding.weight",
            "char_embed",
            ((261, d), (262, d)),
            _with_padding_row,
            _without_padding_row,
        )
    ]
    for i, (width, channels) in enumerate(config.filters):
        table += [
            WeightMapping(
                f"char_cnn.convolutions.{i}.weight",
                f"CNN/W_cnn_{i}",
                ((1, width, d, channels),),
                _conv_to_ours,
                _conv_to_theirs,
            ),
            WeightMapping(f"char_cnn.convolutions.{i}.bias", f"CNN/b_cnn_{i}", ((channels,),), unchanged, unchanged),
        ]
    for k in range(config.n_highway):
        for ours, theirs in (("transform", "transform"), ("gate", "carry")):
            table += [
                WeightMapping(
                    f"char_cnn.highways.{k}.{ours}.weight",
                    f"CNN_high_{k}/W_{theirs}",
                    ((f, f),),
                    _transposed,
                    _transposed,
                ),
                WeightMapping(
                    f"char_cnn.highways.{k}.{ours}.bias", f"CNN_high_{k}/b_{theirs}", ((f,),), unchanged, unchanged
                ),
            ]
    table += [
        WeightMapping("char_cnn.projection.weight", "CNN_proj/W_proj", ((f, p),), _transposed, _transposed),
        WeightMapping("char_cnn.projection.bias", "CNN_proj/b_proj", ((p,),), unchanged, unchanged),
    ]
    for direction, layers in ((0, "bilm.forward_layers"), (1, "bilm.backward_layers")):
        for layer in range(config.n_layers):
            ours = f"{layers}.{layer}"
            theirs = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            table += [
                WeightMapping(
                    f"{ours}.input_linear.weight",
                    f"{theirs}/W_0",
                    ((2 * p, 4 * c),),
                    _rows_transposed(0, p),
                    _transposed,
                ),
                WeightMapping(
                    f"{ours}.state_linear.weight",
                    f"{theirs}/W_0",
                    ((2 * p, 4 * c),),
                    _rows_transposed(p, 2 * p),
                    _transposed,
                ),
                WeightMapping(f"{ours}.input_linear.bias", f"{theirs}/B", ((4 * c,),), unchanged, unchanged),
                WeightMapping(f"{ours}.projection.weight", f"{theirs}/W_P_0", ((c, p),), _transposed, _transposed),
            ]
    return table


#: How a URL starts (``https://``, ``s3://``): AllenNLP's ``Elmo`` and ``allennlp elmo`` took the
#: released files' URLs, which are downloaded nowhere here.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: The first bytes of an HDF5 file (a weight file passed where the options file goes).
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
#: What to give for a refused options file that is no options JSON (a vocabulary, a list).
_GIVE_OPTIONS = "give the model's options.json"
#: Which files a refused weight file should have been.
_WEIGHT_FILES = "(AllenNLP's NAME_weights.hdf5, bilm-tf's dump_weights output)"

#: What an ELMoForManyLangs model is and why it is refused: said of its config.json by ``read_options``
#: and of its folder by ``hf_elmo.loading``.
ELMOFORMANYLANGS_MODEL = (
    "an ELMoForManyLangs model (config.json with token_embedder and encoder; encoder.pkl, char.dic), a format "
    "hf_elmo cannot load or convert: its pickled weights read a dictionary of whole characters, not ELMo's byte "
    "ids; embed with ELMoForManyLangs, or use an AllenNLP / bilm-tf ELMo (options.json + weights .hdf5)"
)


def is_elmoformanylangs_config(config: Any) -> bool:
    """Whether ``config``, a parsed JSON file, is an ELMoForManyLangs model's ``config.json`` (it has
    ``token_embedder`` and ``encoder``)."""
    return isinstance(config, dict) and {"token_embedder", "encoder"} <= config.keys()


def _starts_unlike_hdf5(path: Path) -> bool:
    """Whether the file ``path`` is no HDF5 file at all, its first bytes (those that it could read) not HDF5's
    signature (``_HDF5_SIGNATURE``; HDF5 may put it further on, after a user block, where h5py finds it)."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(len(_HDF5_SIGNATURE))
    except OSError:  # unreadable: h5py's own reason says why
        return False
    return not _HDF5_SIGNATURE.startswith(start)  # b"": an empty file, truncated


def _not_found(what: str, path: PathLike) -> FileNotFoundError:
    """``what`` (``"options file"``, ``"weight file"``) at ``path`` is missing: said of a URL as such
    (``Path`` would fold its ``//``), since nothing downloads it."""
    name = os.fspath(path)
    if _URL.match(name):
        return FileNotFoundError(
            f"the {what} {name} is a URL, and hf_elmo downloads none: download it (e.g. curl -O URL) and pass its "
            "local path"
        )
    return FileNotFoundError(f"{what} not found: {name}")


def read_options(options_path: PathLike) -> ElmoConfig:
    """Parse an ``options.json`` into an ``ElmoConfig`` (clear errors for bad JSON, keys or fields,
    a URL, or a weight file or an ELMoForManyLangs config.json in its place)."""
    check_input_names_a_file(options_path, "the options file")
    path = Path(options_path)
    if path.is_dir():
        raise ValueError(f"the options path {path} is a folder; name its options.json")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise _not_found("options file", options_path) from None
    if raw.startswith(_HDF5_SIGNATURE):
        raise ValueError(
            f"{options_path} is an HDF5 file (a weight file?), not the options JSON: pass the options file first, "
            "then the weight file"
        )
    try:
        options = json_of(raw)  # a BOM, as Windows editors write, is skipped
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{options_path} is not valid JSON ({err}): {_GIVE_OPTIONS}") from None
    if not isinstance(options, dict):
        raise ValueError(f"{options_path}: expected a JSON object, got {described(options)}: {_GIVE_OPTIONS}")
    if is_elmoformanylangs_config(options):
        raise ValueError(f"{options_path} is the config.json of {ELMOFORMANYLANGS_MODEL}")
    try:  # ElmoConfig checks every field, naming its options key
        return ElmoConfig.from_allennlp_options(options)
    except ValueError as err:
        raise ValueError(f"{options_path}: {err}") from None


def _read_datasets(weights_path: PathLike, table: list[WeightMapping]) -> dict[str, np.ndarray]:
    """Every dataset ``table`` names, as float32; all problems found are raised together, among
    them datasets the table does not name (weights of layers the options do not have). A dataset
    that is another file's (``foreign_data``), of the wrong shape, not of numbers or not stored in the
    file (``stored_values``) is refused before its values are read."""
    import h5py

    check_input_names_a_file(weights_path, "the weight file")
    path = Path(weights_path)
    if path.is_dir():
        raise ValueError(f"the weight path {path} is a folder; name the .hdf5 weight file in it")
    if os.path.lexists(_pairing(path)):
        raise OSError(
            f"{path} may not pair with its options file: a save_allennlp of both was killed between "
            f"their renames ({_pairing(path).name} beside it names the options file); save them again"
        )
    if path.exists() and not path.is_file():
        raise ValueError(
            f"the weight path {path} is not a regular file (a pipe or a device?), and HDF5 is read from a file: "
            "save the weights to a file and give that"
        )
    if not path.is_file():
        raise _not_found("weight file", weights_path)
    try:
        handle = h5py.File(path, "r")
    except OSError as err:
        if _starts_unlike_hdf5(path):  # a text file, a pickle, a zip: nothing truncated (was: 'truncated or corrupt?')
            raise ElmoWeightsError(
                f"{path} is not an HDF5 file (it does not start as one): give the biLM's weight file {_WEIGHT_FILES}"
            ) from None
        raise ElmoWeightsError(
            f"{path} is not a readable HDF5 file (truncated or corrupt?): {error_reason(err)}"
        ) from None
    shapes = {row.theirs: row.shapes for row in table}  # each dataset once, in table order
    arrays: dict[str, np.ndarray] = {}
    problems = []
    missing = 0
    with handle:
        for name, allowed in shapes.items():
            foreign = foreign_data(handle, name)
            if foreign:
                problems.append(foreign)
                continue
            if name not in handle:
                problems.append(f"missing dataset {name!r} (expected shape {allowed[0]})")
                missing += 1
                continue
            dataset = handle[name]
            shape = stored_shape(dataset)
            if shape is None:
                problems.append(f"{no_shape(name)}; options imply a dataset of shape {allowed[0]}")
                continue
            if shape not in allowed:
                problems.append(f"dataset {name!r} has shape {shape}, options imply {allowed[0]}")
                continue
            try:
                array, found = stored_values(name, dataset)
            except OSError as err:
                problems.append(f"dataset {name!r} cannot be read (truncated file?): {error_reason(err)}")
                continue
            problems.extend(found)
            if array is not None:
                arrays[name] = array
        unused = [name for name in _dataset_names(handle) if name not in shapes]
        if missing == len(shapes):
            raise ElmoWeightsError(
                f"{path} holds none of the biLM's weights (e.g. dataset {next(iter(shapes))!r}): it is "
                f"{_other_hdf5_kind(unused)}; give the biLM's weight file {_WEIGHT_FILES}"
            )
    if unused:  # first, as it says what the other problems may come from
        problems.insert(
            0,
            f"datasets the options do not use: {some_of(unused, _NAMED)} (does the file have more highway "
            "layers, LSTM layers or filters than the options say?)",
        )
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
        error = ElmoWeightsError(
            f"{path} does not match its options ({count}): {some_of(problems, _SHOWN, '; ')}; give the options "
            "file that was written with these weights"
        )
        error.__notes__ = ["every problem:\n  " + "\n  ".join(problems)]
        raise error
    return arrays


#: How many of a weight file's problems its one-line refusal names (``_read_datasets``; its notes hold them all).
_SHOWN = 3


#: How many of a weight file's datasets that the options do not use are named (``_read_datasets``).
_NAMED = 10


def _other_hdf5_kind(names: list[str]) -> str:
    """What an hdf5 file that holds none of the biLM's weights but the datasets ``names`` (its own:
    ``_dataset_names`` follows no link) is: an embeddings output, the LM softmax or token embeddings dump that the original
    models' folders hold beside their weights, or something else (its first datasets named)."""
    from .embed.output import SENTENCE_TO_INDEX  # hf_elmo.embed imports the model classes

    if SENTENCE_TO_INDEX in names:
        return "an output of elmo embed (or allennlp elmo): embeddings, not weights"
    if "softmax/W" in names:
        return "the LM's softmax, which elmo perplexity takes as --softmax-weights"
    if "embedding" in names:
        return "a dump of token embeddings (dump_token_embeddings)"
    if not names:
        return "an HDF5 file of no datasets"
    return f"not an ELMo biLM's weight file (its datasets: {some_of(names, _NAMED)})"


#: The kinds of hdf5 link other than a hard link, which a weight file's datasets are never reached through.
_LINK_KINDS = {1: "a soft link", 64: "an external link"}  # h5py.h5l.TYPE_SOFT, TYPE_EXTERNAL


def foreign_data(handle: Any, name: str) -> str | None:
    """A problem line when the dataset ``name`` of the open hdf5 file ``handle`` is not the file's
    own, found before h5py follows it to another file or reads any of its values: reached through a
    link that is not a hard link (an external link opens another hdf5 file; a soft link may lead to
    one), or keeping its values outside the file (external storage: any file's raw bytes, e.g.
    /etc/passwd read as float32; a virtual dataset: other files' datasets). ``None`` for a dataset
    stored in the file, and for a missing one (the caller names it)."""
    group = handle
    parts = name.split("/")
    for depth, part in enumerate(parts, start=1):
        key = part.encode()
        if not group.id.links.exists(key):
            return None
        kind = group.id.links.get_info(key).type
        if kind != 0:  # h5py.h5l.TYPE_HARD
            target = group.id.links.get_val(key)  # bytes (soft), (file, path) bytes (external)
            where = ":".join(t.decode(errors="replace") for t in (target if isinstance(target, tuple) else (target,)))
            return (
                f"{'/'.join(parts[:depth])!r} is {_LINK_KINDS.get(kind, 'a user-defined link')} to {where!s}, "
                "not data stored in the file: a weight file holds its datasets itself, and no other file is read"
            )
        group = group[part]
    external = getattr(group, "external", None)
    if getattr(group, "is_virtual", False) or external:
        where = ", ".join(str(entry[0]) for entry in external) if external else "other files' datasets"
        return (
            f"dataset {name!r} keeps its values outside the file ({where}): a weight file holds its datasets "
            "itself, and no other file is read"
        )
    return None


#: The most data may inflate (its size over the bytes that store it) where its size is the file's to
#: declare, not the options': a .zip archive's member (``hf_elmo.archives``' zip-bomb check) and a
#: softmax dump's ``softmax/W``, whose rows are the words (``inflated``): trained float weights
#: compress to about 92% (the shipped model's), the released options files (about 340 bytes) 1.6x;
#: a bomb, about 1000x (deflate's limit): tests/hf_elmo/test_convert_inflation_figures.py.
#: Data of at most ``_SMALL_DATA`` bytes may inflate more (a short all-zero bias compresses further,
#: and costs nothing). A dataset whose shape the options fix needs no such bound: all-zero ones (a
#: zero bias, an untrained layer) compress far beyond it.
MAX_INFLATION = 100
_SMALL_DATA = 1 << 16


def inflates_too_much(size: int, stored: int) -> bool:
    """Whether ``size`` bytes of data kept in ``stored`` bytes inflate more than ``MAX_INFLATION``
    times (a bomb), data of at most ``_SMALL_DATA`` bytes excepted."""
    return size > _SMALL_DATA and size > MAX_INFLATION * max(stored, 1)


def inflated(name: str, dataset: Any) -> str | None:
    """A problem line when the open hdf5 dataset ``name`` (``dataset``), whose size the file chose (a
    softmax's number of words), is compressed beyond ``MAX_INFLATION`` (a bomb: a file of a few KB
    declaring gigabytes of values), found from its storage before any value is read; else ``None``."""
    declared, stored = int(dataset.nbytes), int(dataset.id.get_storage_size())
    if not inflates_too_much(declared, stored):
        return None
    return (
        f"dataset {name!r} declares {declared:,} bytes of values stored in {stored:,} "
        f"({declared // max(stored, 1):,}x), more than any ELMo weight compresses ({MAX_INFLATION}x): an hdf5 "
        "bomb? its values are not read; get the weights from where they were published"
    )


def not_numbers(name: str, dataset: Any) -> str | None:
    """A problem line when the open hdf5 dataset ``name`` (``dataset``) holds values other than
    integers or floats (strings, variable-length arrays, compounds), whose size its shape does not
    bound: a checked shape bounds a dataset of numbers to 16 bytes a value. ``None`` for numbers."""
    dtype = dataset.dtype
    if dtype.kind in "fiu" and dtype.subdtype is None:
        return None
    return f"dataset {name!r} holds values of type {dtype}, not numbers: a weight file holds float arrays"


def unstored_values(name: str, dataset: Any) -> str | None:
    """A problem line when the open hdf5 dataset ``name`` (``dataset``) does not store the values its
    shape declares, found from its storage before any value is read: created but never written, or
    chunked with chunks never written (a conversion or download cut short), which hdf5 reads back as
    the fill value (zeros) with no error. ``None`` for a dataset that stores its values (a contiguous
    one in full, a chunked one in every chunk its shape has), gzip-compressed or not."""
    declared = int(dataset.nbytes)
    stored = int(dataset.id.get_storage_size())
    if dataset.chunks is None:  # contiguous (or compact): its storage is allocated in full, or not at all
        expected, written = 1, int(stored > 0 or declared == 0)
    else:
        expected = math.prod(-(-extent // chunk) for extent, chunk in zip(dataset.shape, dataset.chunks))
        written = int(dataset.id.get_num_chunks())
    if written < expected:
        held = f"{written:,} of its {expected:,} chunks" if written else "none of its values"
        return (
            f"dataset {name!r} was never written in full: the file holds {held}, and what it lacks would read as "
            f"the fill value {dataset.fillvalue}; the file is incomplete (a conversion or download cut short?): "
            "convert or download it again"
        )
    return None


def stored_values(name: str, dataset: Any, bounded: bool = True) -> tuple[np.ndarray | None, list[str]]:
    """The values of the open hdf5 dataset ``name`` (``dataset``, its shape checked by the caller) as
    float32, and the problem lines that refuse them: values that are not numbers (``not_numbers``)
    or that the file does not store (``unstored_values``), or where the shape is not ``bounded`` by
    the options (a softmax's number of words) compressed beyond ``MAX_INFLATION`` (``inflated``),
    all found before any is read (then none is); or NaN or infinite ones (``non_finite``). A checked
    shape bounds the size of a dataset of numbers, all-zero and compressed 1000x or not. The biLM's
    datasets (``elmo_state_dict``) and the LM softmax's (``load_allennlp_with_softmax``) are read
    through it; an ``OSError`` of reading (a truncated file) is the caller's to name."""
    unstored = (
        not_numbers(name, dataset) or unstored_values(name, dataset) or (None if bounded else inflated(name, dataset))
    )
    if unstored:
        return None, [unstored]
    with np.errstate(over="ignore"):  # a finite float64 beyond float32 becomes inf, which non_finite names
        array = np.asarray(dataset[...], dtype=np.float32)
    return array, list(non_finite(name, array))


def stored_shape(item: Any) -> tuple[int, ...] | None:
    """The shape of the hdf5 object ``item`` (a dataset's), or ``None`` where it has none: a group,
    or a dataset of an empty (null) dataspace (``h5py.Empty``)."""
    shape = getattr(item, "shape", None)
    return None if shape is None else tuple(shape)


def no_shape(name: str) -> str:
    """The problem line of the hdf5 object ``name`` that ``stored_shape`` finds no shape in."""
    return f"{name!r} is a group or a dataset of no values (an empty dataspace), not an array"


def _dataset_names(handle: Any) -> list[str]:
    """The names of every dataset in an open hdf5 file, in the file's order."""
    import h5py

    names: list[str] = []
    handle.visititems(lambda name, item: names.append(name) if isinstance(item, h5py.Dataset) else None)
    return names


def non_finite(name: str, array: np.ndarray) -> Iterator[str]:
    """A problem line when the dataset ``name``'s values ``array`` hold NaN or infinite values (as
    float32): the biLM's (``elmo_state_dict``) and the LM softmax's (``load_allennlp_with_softmax``)."""
    bad = int(array.size - np.count_nonzero(np.isfinite(array)))
    if bad:
        yield f"dataset {name!r} holds {bad:,} NaN or infinite values of {array.size:,}"


def _pairing(weights_path: Path) -> Path:
    """The file beside ``weights_path`` that ``save_allennlp`` holds while it renames the weights and options files
    into place (``.NAME.pairing``, naming the options file): a kill between the two renames leaves it, and the
    weights, which may then be of another save than the options, are refused (``_read_datasets``)."""
    return weights_path.with_name(f".{weights_path.name}.pairing")


@contextmanager
def _paired_while_renamed(weights_path: Path, options_path: Path) -> Iterator[Callable[[], object]]:
    """``save_allennlp``'s ``_pairing`` file: yields what writes it (before the renames), removes it when the block
    ends, and, where the block ends with an error or Ctrl-C before the weights were renamed in (the weights file the
    earlier one, the pair as it was), removes it too (was: left, so that loading refused the earlier pair as mixed);
    where the weights were renamed in and the options not, it stays."""
    pairing = _pairing(weights_path)
    earlier = _file_identity(weights_path)
    try:
        yield lambda: write_text_atomic(pairing, f"{options_path.resolve()}\n")
    except BaseException:
        if _file_identity(weights_path) == earlier:
            pairing.unlink(missing_ok=True)
        raise
    pairing.unlink()


def _file_identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of ``path`` (a rename into its place changes them), ``None`` where there is none."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


def elmo_state_dict(weights_path: PathLike, config: ElmoConfig) -> dict[str, torch.Tensor]:
    """Read ``weights_path`` and return ``ElmoModel`` parameters (names without a prefix)."""
    table = weight_table(config)
    arrays = _read_datasets(weights_path, table)
    return {row.ours: torch.from_numpy(np.ascontiguousarray(row.to_ours(arrays[row.theirs]))) for row in table}


def allennlp_datasets(state: dict[str, np.ndarray], config: ElmoConfig) -> dict[str, np.ndarray]:
    """The weight file's datasets (float32) for ``ElmoModel`` parameters ``state`` (names without a
    prefix): the inverse of ``elmo_state_dict``."""
    blocks: dict[str, list[np.ndarray]] = {}
    for row in weight_table(config):
        blocks.setdefault(row.theirs, []).append(row.to_theirs(state[row.ours]))
    return {
        name: np.ascontiguousarray(np.concatenate(parts) if len(parts) > 1 else parts[0], dtype=np.float32)
        for name, parts in blocks.items()
    }


def save_allennlp(model: Any, options_path: PathLike, weights_path: PathLike) -> None:
    """Write ``model`` (an ``ElmoModel``, or a model holding one as ``base_model_prefix``) in the
    original format: the inverse of ``hf_elmo.original_files.load_allennlp``.

    The files load in AllenNLP and bilm-tf. The warm state, if any, is not part of that format.
    Both are written aside and renamed into place when both are whole (``atomic_file``: an error or
    Ctrl-C leaves earlier files as they were; a kill between the two renames leaves ``_pairing``'s file beside the
    weights, which loading refuses, until the next save of the pair; was: new weights loaded with the earlier
    options), in their folders, made where missing (and removed again, empty,
    when the save fails: ``folder_for_the_run``); ``~`` is the home folder. Refused first, in one line naming
    it: one path for both, one that ends with a slash (a folder's, ``check_names_a_file``), is a folder, link or
    device, lies under a file or in a folder that cannot be written, or whose lock file's place holds something of
    the user's (``check_locked_output``); and a disk without room for the weights (``ensure_free_space``: HDF5 does
    not survive a full disk). A second save to the same weights file or options file while one runs fails at once
    (``sole_writer``: ``OutputBusyError``), rather than pair its options file with the other's weights; the temporary
    files that killed saves left beside either, and beside ``_pairing``'s file, are removed (was: those of the options
    file and of ``_pairing``'s left for good).
    """
    import h5py

    check_names_a_file(options_path, "options file", "options.json")
    check_names_a_file(weights_path, "weights file", "weights.hdf5")
    options_path, weights_path = Path(options_path).expanduser(), Path(weights_path).expanduser()
    check_locked_output(weights_path, [options_path], inputs_are="the options file")
    check_locked_output(options_path)
    state = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}
    prefix = "" if "char_cnn.projection.weight" in state else f"{model.base_model_prefix}."
    state = {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
    datasets = allennlp_datasets(state, model.config)
    values_bytes = sum(value.nbytes for value in datasets.values())
    ensure_free_space(weights_path, values_bytes, str(weights_path))
    check_file_size_limit(HDF5_FILE_BYTES + values_bytes + len(datasets) * HDF5_DATASET_BYTES, str(weights_path))
    with (
        folder_for_the_run(options_path.parent),
        folder_for_the_run(weights_path.parent),
        sole_writer(weights_path),  # one save of this pair at a time: never the options of one with the other's weights
        sole_writer(options_path),  # and of the options file, whose killed saves' temporary files it removes
        _paired_while_renamed(weights_path, options_path) as write_pairing,
        atomic_file(options_path) as options_tmp,
        atomic_file(weights_path) as weights_tmp,
    ):
        remove_stale_temporaries(weights_path.parent, _pairing(weights_path).name)  # a killed save's, as the lock's
        options_tmp.write_text(json.dumps(model.config.to_allennlp_options(), indent=2), encoding="utf-8")
        with h5py.File(weights_tmp, "w") as handle:
            for key, value in datasets.items():
                handle.create_dataset(key, data=value)
        write_pairing()  # until both are renamed in
