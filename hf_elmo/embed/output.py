"""The output files of ``elmo embed``: what each records (``SETTINGS_ATTRIBUTE``: the settings
it was made with; ``SENTENCE_TO_INDEX``: AllenNLP's map of each line's text to its dataset), which
files are such outputs (``is_embed_output``), and reading them back (``open_embeddings``: one
file, or a sharded output through its index, ``shards.read_shard_index``).

Every output file records the settings it was made with (input SHA-256, model and its
fingerprint, layers, pool, dtype, shard) in its root attribute ``SETTINGS_ATTRIBUTE``; the shards
of one output must share their input, model, layers, pool and dtype (``differing_setting``): a
shard run that differs from a finished shard is refused (``hf_elmo.embed.run``), and
``open_embeddings`` refuses an index whose shards differ, and a file whose first line is no float32 array of
the shape its recorded ``--layers`` and ``--pool`` make (``line_shape``), or of another width than the first
shard's.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from ..fileio import PathLike, oserror_in_one_line
from ..messages import described, first_line
from .shards import Shard, read_shard_index, shard_index_file

#: AllenNLP's dataset of every line's text (stripped), as JSON, to the name of its line's dataset.
SENTENCE_TO_INDEX = "sentence_to_index"
#: The root attribute of an output file that records, as JSON, the settings it was made with.
SETTINGS_ATTRIBUTE = "elmo_embed_settings"
#: What that record holds (of a run's settings; ``pool`` is null for unpooled vectors).
_RECORDED_SETTINGS = ("input_bytes", "input_sha256", "model", "model_sha256", "layers", "pool", "dtype", "shard")
#: The recorded settings that the shards of one output must share, as users name them.
_SHARED_SETTINGS = {
    "input_sha256": "input",
    "model_sha256": "model",
    "layers": "--layers",
    "pool": "--pool",
    "dtype": "--dtype",
}


def is_embed_output(path: Path) -> bool:
    """Whether the file ``path`` is an output of ``elmo embed`` (or of ``allennlp elmo``, the
    format it follows): an HDF5 file that records its settings or holds ``sentence_to_index``.
    ``--overwrite`` replaces such a file only (``hf_elmo.embed.run``)."""
    if not path.is_file() or not h5py.is_hdf5(path):
        return False
    try:
        with h5py.File(path, "r") as handle:
            return SETTINGS_ATTRIBUTE in handle.attrs or SENTENCE_TO_INDEX in handle
    except OSError:  # a damaged HDF5 file
        return False


def recorded_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """What an output file records of its run's ``settings`` (``SETTINGS_ATTRIBUTE``)."""
    return {key: settings.get(key) for key in _RECORDED_SETTINGS}


def read_recorded_settings(handle: h5py.File) -> dict[str, Any] | None:
    """The settings an output file records; None for one written before outputs recorded them.
    Raises ``ValueError``, in one line naming the file, where that record is no JSON object (a damaged
    or hand-edited file: no JSON, or JSON of a list, a number, a string)."""
    text = handle.attrs.get(SETTINGS_ATTRIBUTE)
    if text is None:
        return None
    try:
        settings = json.loads(text)
    except (ValueError, TypeError) as err:  # TypeError: an attribute that is no text (a number, an array)
        held = f"no JSON ({first_line(err)})"
    else:
        if isinstance(settings, dict):
            return settings
        held = described(settings)
    raise ValueError(
        f"{handle.filename} is damaged: its {SETTINGS_ATTRIBUTE} attribute holds {held}, not the JSON object of "
        "the settings elmo embed records; make that file again (elmo embed --overwrite), or write to a new output"
    )


def differing_setting(first: dict[str, Any] | None, second: dict[str, Any] | None) -> tuple[str, str, str] | None:
    """The first setting that shards of one output must share in which two recorded settings
    differ: its name, as users know it, and the two values shown; None if they agree (or if
    neither records any: outputs of older versions)."""
    if first is None or second is None:
        if first is second:
            return None
        shown = ["none: an older elmo embed" if r is None else "recorded" for r in (first, second)]
        return "recorded settings", shown[0], shown[1]
    for key, name in _SHARED_SETTINGS.items():
        if first.get(key) != second.get(key):
            shown = [_shown(r, key) for r in (first, second)]
            return name, shown[0], shown[1]
    return None


def _shown(recorded: dict[str, Any], key: str) -> str:
    """The setting ``key`` of ``recorded`` as ``differing_setting`` shows it: a digest cut to 12 characters, the
    model's with its name; "none" where a hand-edited record lacks it."""
    value = recorded.get(key)
    if value is None:
        return "none"
    if key == "input_sha256":
        return f"SHA-256 {str(value)[:12]}..."
    if key == "model_sha256":
        return f"{recorded.get('model')}, SHA-256 {str(value)[:12]}..."
    return str(value)


def line_shape(layers: str, pool: str | None, depth: int, width: int) -> tuple[int | None, ...]:
    """The shape of every line's array that an ``elmo embed`` run of ``layers`` and ``pool`` writes with a model of
    ``depth`` layers (L+1) of ``width`` (2P), None for the line's tokens: (L+1, T, 2P) for every layer, less L+1
    for one, less T pooled."""
    return (*((depth,) if layers == "all" else ()), *(() if pool else (None,)), width)


def is_line(array: object, shape: tuple[int | None, ...]) -> bool:
    """Whether ``array`` (an object of an output file) is a float32 dataset of ``shape``, None any size."""
    return (
        isinstance(array, h5py.Dataset)
        and array.dtype == np.float32
        and len(array.shape) == len(shape)
        and all(size is None or size == got for size, got in zip(shape, array.shape))
    )


def _check_first_lines(named: list[tuple[Path, h5py.File, dict[str, Any] | None]]) -> None:
    """Refuse, in one line naming the file, one among ``named`` (each file, its handle and its recorded settings)
    whose first line is no float32 array of the shape its recorded ``--layers`` and ``--pool`` make, the model's
    depth and width those of the first such file's first line (a file edited by hand, or written by another
    program under a copied record; was: returned as it was, silently). One line a file: a cheap check at open."""
    expected: tuple[int | None, ...] | None = None
    for path, handle, recorded in named:
        if recorded is None:  # an older output's, which records no settings
            continue
        with _named_if_damaged(path):
            first = next((name for name in handle if name != SENTENCE_TO_INDEX), None)
            array = None if first is None else handle[first]
        if first is None:  # a file of no lines
            continue
        layers, pool = str(recorded.get("layers")), recorded.get("pool")
        if expected is None:
            sizes: tuple[int, ...] = getattr(array, "shape", None) or ()
            fits = len(sizes) == len(line_shape(layers, pool, 0, 0))
            expected = line_shape(layers, pool, sizes[0], sizes[-1]) if fits else None
        if expected is None or not is_line(array, expected):
            made = line_shape(layers, pool, -1, -2) if expected is None else expected
            shown = ", ".join({None: "T", -1: "L+1", -2: "2P"}.get(size, str(size)) for size in made)
            held = f"an array of {array.dtype}, shape {array.shape}" if isinstance(array, h5py.Dataset) else "no array"
            raise ValueError(
                f"{path} is damaged: its line {first} holds {held}, where its recorded settings (--layers {layers}, "
                f"--pool {pool or 'none'}) make arrays of float32, shape ({shown}{',' * (len(made) == 1)}); make it "
                "again (elmo embed --overwrite), or open another file"
            )


class Embeddings:
    """Read access to the arrays written by ``elmo embed``: ``embeddings[line]`` is the array of
    input line ``line`` (0-based; a negative one counts from the end, as in a list), read from
    disk. Use it as a context manager, or ``close()`` it.

    A single shard file opened alone holds only its own lines (``len`` counts them); indexing
    is by global line index in any case, and from the end only through the shard index.
    """

    def __init__(self, files: list[h5py.File], num_lines: int, lone_shard: bool = False) -> None:
        self.files = files
        self.num_lines = num_lines
        self.lone_shard = lone_shard

    def __len__(self) -> int:
        return self.num_lines

    def __getitem__(self, line: int) -> np.ndarray:
        line = operator.index(line)
        if line < 0 and self.lone_shard:
            raise IndexError(
                f"line {line}: {self.files[0].filename} is one shard of an output, indexed by the input's line "
                "numbers (0 and up); open the output's index file (OUTPUT.index.json) to count from the end"
            )
        index = line + self.num_lines if line < 0 else line
        if not self.lone_shard and not 0 <= index < self.num_lines:
            raise IndexError(
                f"line {line} is out of range: there are {self.num_lines:,} lines "
                f"(0 to {self.num_lines - 1:,}, or -{self.num_lines:,} to -1)"
            )
        handle = self.files[index % len(self.files)]
        with _named_if_damaged(handle.filename):
            if str(index) not in handle:
                raise IndexError(f"line {line} is not in {handle.filename}")
            return handle[str(index)][()]

    def close(self) -> None:
        for handle in self.files:
            handle.close()

    def __enter__(self) -> Embeddings:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def open_embeddings(path: PathLike) -> Embeddings:
    """Open an output of ``elmo embed``: an HDF5 file, or a sharded run's ``OUTPUT.index.json``
    (every shard file must be there), which ``OUTPUT`` itself also names when no such file exists."""
    path = Path(path)
    if path.suffix != ".json":
        if not path.exists() and shard_index_file(path).is_file():
            path = shard_index_file(path)  # the OUTPUT of a sharded run
        else:
            return _open_file(path)
    index = read_shard_index(path)
    files = [path.parent / name for name in index["files"]]
    for file in files:
        if not file.is_file():
            raise FileNotFoundError(f"{file}, listed in {path}, is missing: has every shard finished?")
    with ExitStack() as opened:  # a failure closes the files opened so far
        handles = [opened.enter_context(_open_hdf5(file)) for file in files]
        recorded = []
        for file, handle in zip(files, handles):
            with _named_if_damaged(file):
                recorded.append(read_recorded_settings(handle))
        first = recorded[0]
        for file, settings in zip(files[1:], recorded[1:]):
            differ = differing_setting(first, settings)
            if differ:
                name, ours, theirs = differ
                raise ValueError(
                    f"{path}: its shards differ in {name} ({files[0].name}: {ours}; {file.name}: {theirs}); "
                    "run every shard again with the same settings (--overwrite)"
                )
        _check_first_lines(list(zip(files, handles, recorded)))
        opened.pop_all()
    return Embeddings(handles, index["num_lines"])


def _open_file(path: Path) -> Embeddings:
    """One output file: a whole run's or one shard's."""
    if not path.exists():
        shards = Shard.shard_files(path)
        found = f"; there are shard files ({shards[0].name}, ...) but no index: has shard 0 finished?" if shards else ""
        raise FileNotFoundError(f"{path} not found{found}")
    with ExitStack() as opened:  # closed again if it cannot be read
        handle = opened.enter_context(_open_hdf5(path))
        with _named_if_damaged(path):
            recorded = read_recorded_settings(handle)
            lines = len(handle) - (SENTENCE_TO_INDEX in handle)
            _check_first_lines([(path, handle, recorded)])
        opened.pop_all()
    lone_shard = Shard.is_shard_file(path) if recorded is None else recorded.get("shard", "0/1") != "0/1"
    return Embeddings([handle], lines, lone_shard)


def _open_hdf5(path: Path) -> h5py.File:
    """``path``, an output file, opened for reading; one that HDF5 cannot read (truncated, damaged, or
    no HDF5 file) is refused in one line naming it (h5py's error names no file: 'Unable to synchronously
    open file (truncated file: eof = ...)')."""
    try:
        return h5py.File(path, "r")
    except OSError as err:
        if err.errno is not None:  # the system's (no such file, permission denied): h5py's text names the file
            raise
        raise oserror_in_one_line(
            None,
            f"{path} cannot be read as HDF5 ({first_line(err)}): a truncated or damaged file, or no output of "
            "elmo embed; make it again (elmo embed --overwrite), or open another file",
        ) from None


@contextmanager
def _named_if_damaged(path: PathLike) -> Iterator[None]:
    """h5py's errors reading the contents of a damaged output file, which name no file (``KeyError``: 'Unable
    to synchronously open object (message not aligned)', ``RuntimeError``: 'Unable to get group info (...)',
    ``OSError``: "Can't synchronously read data (...)", ``UnicodeDecodeError`` of a name), refused in one line naming ``path``."""
    try:
        yield
    except (KeyError, RuntimeError, OSError, UnicodeDecodeError) as err:  # the last: an object's damaged name
        if isinstance(err, OSError) and err.errno is not None:  # the system's, which names the file
            raise
        # a KeyError's str quotes its text; a UnicodeDecodeError's first argument is the codec's name
        reason = str(err) if isinstance(err, UnicodeDecodeError) or not err.args else str(err.args[0])
        raise oserror_in_one_line(
            None, f"{path} is damaged ({reason}); make it again (elmo embed --overwrite), or open another file"
        ) from None
