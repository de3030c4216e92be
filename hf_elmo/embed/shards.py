"""Sharding: which lines of the input a process embeds, the files its output is named by, and
the shard index that ``open_embeddings`` opens as one output.

``Shard(i, N)`` (N at most ``MAX_SHARDS``) takes the lines whose index is i modulo N, in chunks of
``chunk_lines`` of its own lines (``Shard.chunk_of``), and writes ``OUTPUT`` with ``.shard-i-of-N``
before its suffix (datasets keep the global line index; each shard file is a complete
AllenNLP-style file for its lines). Shard 0 also writes the index ``OUTPUT.index.json``
(``write_shard_index``, before it removes its partial folder: see ``hf_elmo.embed.run``), which
``open_embeddings`` opens like a single file (``read_shard_index``). Shards are independent processes (e.g. one per GPU
under ``torchrun``); no process group is needed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import torchrun
from ..embed_options import DEFAULT_CHUNK_LINES as DEFAULT_CHUNK_LINES
from ..fileio import PathLike, write_text_atomic
from ..messages import described, quoted

#: The most shards of one output (``Shard``'s N): its index lists every shard file.
MAX_SHARDS = 1024
#: What a shard must be (``--shard``, ``Shard.parse``), as its errors say: ``must be SHARD_FORM, got '3/2'``.
SHARD_FORM = f"I/N, whole numbers with 0 <= I < N <= {MAX_SHARDS} (e.g. 0/2)"
#: The ``format`` of a shard index (``write_shard_index``).
INDEX_FORMAT = "elmo-embed-shards"
#: What ``Shard.output_file`` puts between a shard's file stem and suffix, and the pattern of any shard's.
_SHARD_TAG = ".shard-{index}-of-{count}"
_SHARD_TAG_PATTERN = r"\.shard-[0-9]+-of-[0-9]+"


@dataclass(frozen=True)
class Shard:
    """Lines ``index``, ``index + count``, ``index + 2 * count``, ... of the input."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count <= MAX_SHARDS:
            raise ValueError(f"shard {self.index}/{self.count}: must be {SHARD_FORM}")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` (``SHARD_FORM``), e.g. ``"0/2"``; any other text is refused in the one form of a refused option
        value, ``must be SHARD_FORM, got '3/2'``, the text quoted whatever was wrong with it (was: ``shard 3/2`` unquoted
        where its numbers were out of range, ``shard '1/2.0'`` quoted where they were no whole numbers)."""
        match = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
        if match and 0 <= int(match[1]) < int(match[2]) <= MAX_SHARDS:
            return cls(int(match[1]), int(match[2]))
        raise ValueError(f"must be {SHARD_FORM}, got {quoted(text)}")

    @classmethod
    def from_environment(cls) -> Shard:
        """``RANK`` of ``WORLD_SIZE`` when started by ``torchrun``, else the whole input."""
        try:
            rank, world_size = torchrun.rank(), torchrun.world_size()
        except ValueError as err:
            raise ValueError(f"{err}, or pass --shard i/N") from None
        try:
            return cls(rank, world_size)
        except ValueError:
            raise ValueError(
                f"the environment's RANK={rank} and WORLD_SIZE={world_size} (as torchrun sets them) are no shard: "
                f"need 0 <= RANK < WORLD_SIZE <= {MAX_SHARDS}; unset them, or pass --shard i/N"
            ) from None

    def owns(self, line: int) -> bool:
        return line % self.count == self.index

    def chunk_of(self, line: int, chunk_lines: int) -> int:
        """The chunk that an owned ``line`` falls in (chunks count this shard's lines)."""
        return line // self.count // chunk_lines

    def output_file(self, output: PathLike) -> Path:
        """``out.hdf5`` itself for the whole input, ``out.shard-i-of-N.hdf5`` for a shard."""
        output = Path(output)
        if self.count == 1:
            return output
        return output.with_name(f"{output.stem}{_SHARD_TAG.format(index=self.index, count=self.count)}{output.suffix}")

    @staticmethod
    def is_shard_file(path: PathLike) -> bool:
        """Whether ``path`` is named as ``output_file`` names a shard's file."""
        return re.search(_SHARD_TAG_PATTERN + "$", Path(path).stem) is not None

    @staticmethod
    def shard_files(output: PathLike) -> list[Path]:
        """The shard files of ``output`` there are (of any count)."""
        output = Path(output)
        name = re.compile(re.escape(output.stem) + _SHARD_TAG_PATTERN + re.escape(output.suffix))
        if not output.parent.is_dir():
            return []
        return sorted(p for p in output.parent.iterdir() if name.fullmatch(p.name))


def run_shard(shard: str | None) -> Shard:
    """The shard of a run: ``shard`` (``--shard``'s ``"i/N"``) if given, an empty one refused (an unset shell
    variable: ``--shard "$SHARD"``; was: the whole input embedded), else ``Shard.from_environment()``; a refusal
    names the option, ``argument --shard: must be ..., got '3/2'``, as argparse names a refused integer option's."""
    if shard is None:
        return Shard.from_environment()
    try:
        return Shard.parse(shard)
    except ValueError as err:
        raise ValueError(f"argument --shard: {err}") from None


def shard_index_file(output: PathLike) -> Path:
    """Where shard 0 writes the index of a sharded output: ``OUTPUT.index.json``."""
    output = Path(output)
    return output.with_name(output.name + ".index.json")


def write_shard_index(output: PathLike, shard: Shard, num_lines: int, layers: str) -> Path:
    """Write the index of the ``shard.count`` shard files of ``output`` (of an input of
    ``num_lines`` lines) to ``shard_index_file(output)``, and return that path."""
    index = shard_index_file(output)
    write_text_atomic(
        index,
        json.dumps(
            {
                "format": INDEX_FORMAT,
                "num_shards": shard.count,
                "num_lines": num_lines,
                "assignment": "line % num_shards",
                "files": [Shard(i, shard.count).output_file(output).name for i in range(shard.count)],
                "layers": layers,
            },
            indent=2,
        )
        + "\n",
    )
    return index


def read_shard_index(index: PathLike) -> dict[str, Any]:
    """The record of the shard index ``index`` as ``write_shard_index`` wrote it (``format``,
    ``num_shards``, ``num_lines``, ``assignment``, ``files``: the shard files' names, beside it,
    ``layers``). A file that is no shard index of ``elmo embed`` (not JSON, not an object, another
    ``format``, or ``num_shards``, ``num_lines`` or ``files`` missing or not what it wrote:
    ``_index_problem``) is a ``ValueError`` naming it; one that cannot be read, an ``OSError``."""
    index = Path(index)
    try:
        record = json.loads(index.read_text(encoding="utf-8"))
    except ValueError as err:  # invalid JSON or UTF-8
        raise ValueError(f"{index} is not a shard index of elmo embed (not JSON: {err})") from None
    if not isinstance(record, dict):
        raise ValueError(
            f"{index} is not a shard index of elmo embed (it holds {described(record)}, not a JSON object)"
        )
    if record.get("format") != INDEX_FORMAT:
        raise ValueError(f"{index} is not a shard index of elmo embed (format {record.get('format')!r})")
    problem = _index_problem(record)
    if problem:
        raise ValueError(f"{index} is not a shard index of elmo embed ({problem})")
    return record


def _index_problem(record: dict[str, Any]) -> str | None:
    """What in a record of the index ``format`` is not as ``write_shard_index`` writes it, of what
    its readers use: ``num_shards`` (1 to ``MAX_SHARDS``), ``num_lines`` (a count) and ``files`` (a
    file name for each shard); None when nothing is."""
    missing = [name for name in ("num_shards", "num_lines", "files") if name not in record]
    if missing:
        return f"no {' or '.join(missing)}"
    shards, lines, files = record["num_shards"], record["num_lines"], record["files"]
    # type() is int: JSON's true and false are no numbers, though Python's bools are ints
    if type(shards) is not int or not 1 <= shards <= MAX_SHARDS:
        return f"num_shards {json.dumps(shards)}, not a whole number from 1 to {MAX_SHARDS}"
    if type(lines) is not int or lines < 0:
        return f"num_lines {json.dumps(lines)}, not a whole number >= 0"
    if not isinstance(files, list) or len(files) != shards or not all(isinstance(n, str) and n for n in files):
        return f"files is not a list of {shards} file names (num_shards), one for each shard"
    return None


def check_shard_index(index: Path, shard: Shard, overwrite: bool) -> None:
    """Refuse, before shard 0 of ``shard.count`` computes anything, to replace ``index`` when it
    is not a shard index of ``elmo embed`` (a user's file), or, unless ``overwrite``, one of this
    output with another number of shards (whose shard files it would orphan)."""
    if not index.exists():
        return
    try:
        record = read_shard_index(index)
    except (OSError, ValueError):
        raise FileExistsError(
            f"{index} exists and is no shard index of elmo embed, so it is not replaced; move it, or write to "
            "another output"
        ) from None
    if record["num_shards"] != shard.count and not overwrite:
        raise FileExistsError(
            f"{index} indexes {record['num_shards']} shards of this output, and this run is shard {shard.index} "
            f"of {shard.count}; run the shards of that count, write to another output, or pass --overwrite (then "
            f"run the other shards of {shard.count} too)"
        )
