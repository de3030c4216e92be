"""Bulk embedding with the biLM (``elmo embed``): sentences in, one array per sentence out.

``embed_sentences`` streams arrays for tokenised sentences; ``embed_file`` writes a text file's
vectors to HDF5, resumably; ``open_embeddings`` reads them back.

What a run writes and promises (the AllenNLP ``allennlp elmo`` format, with its few differences;
validation first; resume; one run per output; sharding; bounded memory) is told once, for users,
in README.md, section "Bulk embedding (``elmo embed``)"; the CLI's help points there. What
follows is how this module keeps those promises.

**Validation first**: one pass over the input checks every line and raises ``CorpusError``
naming the file, the bad lines and their count before anything is written.

**Resume and crash safety**: a run's lines are cut into chunks of ``chunk_lines`` consecutive
lines (of its shard). A finished chunk is written to ``OUTPUT.partial/part-NNNNNN.hdf5`` under a
temporary name, fsynced and renamed (``fileio.atomic_file``), so a part file is either complete
or absent whenever the process dies; ``OUTPUT.partial/run.json`` records the settings (input
path, size, mtime and SHA-256, model, the model's fingerprint ``model_sha256``, layers, dtype,
chunk size, shard). ``model_sha256`` (``model_fingerprint``) hashes what computes the vectors, the
model in memory: its config less where it was loaded from, and its state dict (weights and warm
state, about 3 ms for the shipped model's 5 MB), so a model changed in place (same folder, other
weights) is another setting, never a resumed run mixing two models. Run again with the same
settings, it skips the finished chunks (batch size, device and threads may change: they change
the vectors by float rounding at most) and computes a damaged one again; other settings are an
error unless ``overwrite`` once a chunk is finished (before that nothing binds them: a run of
other settings replaces ``run.json`` and starts afresh); the input's date is no setting (a file
touched or copied with the same content resumes: its SHA-256 is). When every chunk is done the
parts are copied into ``OUTPUT.tmp``, the input's content is checked to be unchanged (its size
and date as at the start, or else its SHA-256; else: an error, nothing written, the run
discarded), ``run.json`` records the identity (device, inode, size, mtime) of ``OUTPUT.tmp``,
``OUTPUT.tmp`` is renamed to OUTPUT, shard 0 of several writes the index, and the partial folder
is removed last (its ``run.json`` after the parts, so that a run killed meanwhile leaves a folder
the next run knows as this run's, and finishes: index included). With ``overwrite`` an old
OUTPUT stays until that rename replaces it, so a run that fails or is killed loses nothing; an
OUTPUT beside a matching partial folder is a finished one only if it is the file ``run.json``
names, and beside an empty partial folder (killed after removing ``run.json``) only if it records
the run's settings (``SETTINGS_ATTRIBUTE``): the same command then finishes, saying the output
is written, as for a folder with ``run.json``; other settings are told the output exists, and
``overwrite`` replaces it.
A write that would fill the disk stops the run first (HDF5 crashes on a full disk), keeping the
finished parts; the ``OUTPUT.tmp`` that a kill while merging leaves is removed by the next merge
before it checks the free space, so its bytes never stop the run that would remove it.

**One run per output**: a run holds ``OUTPUT.lock`` (``fileio.exclusive_lock``) from before it
reads ``run.json`` until it ends; a second run on the same output fails at once. The output may
not be the input, a folder, a link or a device (``fileio.check_output_file``, checked before
anything is computed, not only at the final rename), nor be, hold or lie in the model's files,
even with ``overwrite``.
The input must be a regular file (it is read twice, and again on resume): not stdin or a pipe.

**Sharding**: ``Shard(i, N)`` (N at most ``MAX_SHARDS``) takes the lines whose index is i
modulo N and writes ``OUTPUT`` with ``.shard-i-of-N`` before its suffix (datasets keep the global
line index; each shard file is a complete AllenNLP-style file for its lines). Shard 0 also writes
the index ``OUTPUT.index.json`` (before it removes its partial folder: see above), which
``open_embeddings`` opens like a single file. Shards are
independent processes (e.g. one per GPU under ``torchrun``); no process group is needed. Every
output file records the settings it was made with (input SHA-256, model and its fingerprint,
layers, pool, dtype, shard) in its root attribute ``SETTINGS_ATTRIBUTE``; a shard run whose input,
model, layers, pool or dtype differ from those of a finished shard of the same output is refused
(unless ``overwrite``), and ``open_embeddings`` refuses an index whose shards differ in them.

**Memory** does not grow with the input: sentences are read ahead by at most
``lookahead_tokens`` (8 batches by default), sorted by length into batches of at most
``batch_tokens`` padded tokens (a longer sentence runs alone), and their arrays are written as
they come. What does grow with the lines: ``sentence_to_index``, one JSON string of every
line's text, built while merging, and HDF5's index of the datasets of the open file (its
metadata cache is bounded; the names' heap grows by a few bytes a line).
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import groupby, tee
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import torch
from tqdm.auto import tqdm

from .batching import token_budget_batches
from .corpus import MAX_LINE_CHARS, CorpusError, read_lines, undecodable_byte
from .cuda_graphs import GraphedElmo
from .fileio import (
    PathLike,
    atomic_file,
    check_output_file,
    check_parent_folders,
    ensure_free_space,
    exclusive_lock,
    input_identity,
    is_or_holds,
    lock_path,
    temporary_path,
    write_text_atomic,
)
from .modeling_elmo import ElmoModel, mean_pool
from .tokenization_elmo import (
    DEFAULT_MAX_TOKEN_CHARS,
    WHITESPACE,
    batch_to_ids,
    check_split_words,
    split_words,
    token_to_char_ids,
)

#: What is stored per sentence: every layer, the top one, or their mean.
LAYERS = ("all", "top", "average")
#: How a sentence's token vectors are pooled into one vector: not at all, or their mean.
POOLS = (None, "mean")
DEFAULT_BATCH_TOKENS = 4096
#: Sentences read ahead and sorted together, in batches of ``batch_tokens``.
LOOKAHEAD_BATCHES = 8
DEFAULT_CHUNK_LINES = 10_000
#: The most shards of one output (``Shard``'s N): its index lists every shard file.
MAX_SHARDS = 1024
#: How a shard is given (``--shard``, ``Shard.parse``), as its errors say.
SHARD_FORM = "--shard I/N, whole numbers with 0 <= I < N (e.g. 0/2)"
SENTENCE_TO_INDEX = "sentence_to_index"
INDEX_FORMAT = "elmo-embed-shards"
RUN_FILE = "run.json"
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
#: Bad lines quoted in a validation error (all of them are counted).
REPORTED_BAD_LINES = 5
#: What to do when the disk is full.
_RESUME = "run the same command again: the finished chunks are kept"


# -- sentences to arrays ----------------------------------------------------------------------
def embed_sentences(
    model: ElmoModel,
    sentences: Iterable[Sequence[str]],
    *,
    layers: str = "all",
    batch_tokens: int = DEFAULT_BATCH_TOKENS,
    device: str | torch.device | None = None,
    dtype: torch.dtype | None = None,
    max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
    lookahead_tokens: int | None = None,
    pool: str | None = None,
    cuda_graphs: bool = False,
) -> Iterator[np.ndarray]:
    """Embed tokenised sentences; yields one float32 array per sentence, in input order.

    Every sentence starts from the model's initial state, so its vectors do not depend on the
    batching. Sentences are read ahead by about ``lookahead_tokens`` tokens (default
    ``LOOKAHEAD_BATCHES * batch_tokens``), sorted by length and run in batches of at most
    ``batch_tokens`` padded tokens (a longer sentence runs alone).

    Args:
        model: the biLM; put in eval mode, and moved to ``device`` / cast to ``dtype`` (in
            place, like ``model.to``) when they are given. Arrays are float32 whatever ``dtype``.
        sentences: token lists; an empty one is an error.
        layers: ``"all"`` (L+1, T, 2P), ``"top"`` (T, 2P) the last layer, or ``"average"``
            (T, 2P) the mean over layers.
        cuda_graphs: run the biLM through ``cuda_graphs.GraphedElmo`` (one CUDA graph per
            batch/length bucket on a GPU; the same vectors within 1e-5).
        max_token_chars: longer tokens are an error (``None``: truncated as the original does).
        pool: ``"mean"``: one vector per sentence, the mean over its tokens (``mean_pool``):
            (L+1, 2P) for ``layers="all"``, (2P,) for ``"top"`` and ``"average"``.
    """
    _check_options(layers, pool, batch_tokens)
    if device is not None or dtype is not None:
        model.to(device=device, dtype=dtype)  # type: ignore[call-arg]  # typeshed's functools.wraps leaves PreTrainedModel.to unbound
    model.eval()
    forward = GraphedElmo(model) if cuda_graphs else partial(model, stateful=False)
    lookahead = lookahead_tokens or LOOKAHEAD_BATCHES * batch_tokens
    return _embed_stream(model, forward, iter(sentences), layers, batch_tokens, max_token_chars, lookahead, pool)


#: input_ids (B, T, W) on the model's device -> the model's stateless ``ElmoModelOutput``.
Forward = Callable[..., Any]


def _embed_stream(
    model: ElmoModel,
    forward: Forward,
    sentences: Iterator[Sequence[str]],
    layers: str,
    batch_tokens: int,
    max_token_chars: int | None,
    lookahead: int,
    pool: str | None,
) -> Iterator[np.ndarray]:
    done = 0
    while True:
        chunk: list[Sequence[str]] = []
        tokens = 0
        for sentence in sentences:
            if len(sentence) == 0:
                raise ValueError(f"sentence {done + len(chunk)} has no tokens to embed")
            if isinstance(sentence, str):
                raise TypeError(f"sentence {done + len(chunk)} is the str {sentence[:40]!r}, not a list of words")
            check_split_words(sentence, f"sentence {done + len(chunk)}")
            chunk.append(sentence)
            tokens += len(sentence)
            if tokens >= lookahead:
                break
        if not chunk:
            return
        yield from _embed_chunk(model, forward, chunk, layers, batch_tokens, max_token_chars, pool)
        done += len(chunk)


def _embed_chunk(
    model: ElmoModel,
    forward: Forward,
    chunk: list[Sequence[str]],
    layers: str,
    batch_tokens: int,
    max_token_chars: int | None,
    pool: str | None,
) -> list[np.ndarray]:
    """The arrays of ``chunk``'s sentences, in order, computed in length-sorted batches."""
    out: dict[int, np.ndarray] = {}
    for batch in token_budget_batches([len(s) for s in chunk], batch_tokens):
        rows = [chunk[i] for i in batch]
        ids = batch_to_ids(rows, model.config.max_characters_per_token, max_token_chars)
        with torch.inference_mode():  # the model reads the attention mask off the ids' padding
            output = forward(input_ids=ids.to(model.device))
            wanted = output.hidden_states[-1:] if layers == "top" else output.hidden_states
            if pool == "mean":
                wanted = [mean_pool(h, output.attention_mask) for h in wanted]  # (B, 2P) each
            arrays = [h.float().cpu().numpy() for h in wanted]  # (B, T, 2P) each, or (B, 2P) pooled
        for row, index in enumerate(batch):
            length = len(chunk[index])
            stacked = np.stack([a[row] if pool else a[row, :length] for a in arrays])  # (L+1 or 1, [T,] 2P), a copy
            if layers == "all":
                out[index] = stacked
            else:
                out[index] = stacked[0] if layers == "top" else stacked.mean(axis=0)
    return [out[i] for i in range(len(chunk))]


# -- the input file ---------------------------------------------------------------------------
#: What ``Shard.output_file`` puts between a shard's file stem and suffix, and the pattern of any shard's.
_SHARD_TAG = ".shard-{index}-of-{count}"
_SHARD_TAG_PATTERN = r"\.shard-[0-9]+-of-[0-9]+"


@dataclass(frozen=True)
class Shard:
    """Lines ``index``, ``index + count``, ``index + 2 * count``, ... of the input."""

    index: int = 0
    count: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise ValueError(f"shard {self.index}/{self.count}: expected {SHARD_FORM}")
        if self.count > MAX_SHARDS:
            raise ValueError(f"shard {self.index}/{self.count}: at most {MAX_SHARDS} shards")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` (``SHARD_FORM``), e.g. ``"0/2"``."""
        match = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
        if not match:
            raise ValueError(f"shard {text!r}: expected {SHARD_FORM}")
        return cls(int(match[1]), int(match[2]))

    @classmethod
    def from_environment(cls) -> Shard:
        """``RANK`` of ``WORLD_SIZE`` when started by ``torchrun``, else the whole input."""
        rank, world_size = os.environ.get("RANK", "0"), os.environ.get("WORLD_SIZE", "1")
        try:
            return cls.parse(f"{rank}/{world_size}")
        except ValueError:
            raise ValueError(
                f"the environment's RANK={rank!r} and WORLD_SIZE={world_size!r} (as torchrun sets them) are no shard: "
                f"need whole numbers 0 <= RANK < WORLD_SIZE <= {MAX_SHARDS}; unset them, or pass --shard i/N"
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
    """The shard of a run: ``shard`` (``"i/N"``) if given, else ``Shard.from_environment()``."""
    return Shard.parse(shard) if shard else Shard.from_environment()


def shard_index_file(output: PathLike) -> Path:
    """Where shard 0 writes the index of a sharded output: ``OUTPUT.index.json``."""
    output = Path(output)
    return output.with_name(output.name + ".index.json")


def _write_shard_index(output: PathLike, shard: Shard, num_lines: int, layers: str) -> Path:
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


@dataclass
class InputScan:
    """What the validation pass learnt: ``num_lines`` of the file, ``shard_lines`` of them in
    the shard, and the tokens of each chunk of the shard's lines (``chunk_tokens``)."""

    num_lines: int
    shard_lines: int
    chunk_tokens: list[int]


def scan_input(
    path: PathLike,
    shard: Shard = Shard(),
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
    max_characters_per_token: int = 50,
) -> InputScan:
    """Check every line of ``path`` (not blank, valid UTF-8 without NUL bytes, tokens that the
    char ids accept).

    Raises ``CorpusError`` naming the file, the first bad lines (numbered from 1), their
    problems and how many there are, or saying that the file has no lines.
    """
    bad: list[str] = []
    n_bad = 0
    chunk_tokens: list[int] = []
    num_lines = shard_lines = 0
    for index, line in enumerate(read_lines(path)):
        num_lines += 1
        tokens = line.split()
        problem = _line_problem(line, tokens, max_token_chars, max_characters_per_token)
        if problem is not None:
            n_bad += 1
            if len(bad) < REPORTED_BAD_LINES:
                bad.append(f"line {index + 1}: {problem}")
        if shard.owns(index):
            shard_lines += 1
            chunk = shard.chunk_of(index, chunk_lines)
            if chunk == len(chunk_tokens):
                chunk_tokens.append(0)
            chunk_tokens[chunk] += len(tokens)
    if num_lines == 0:
        raise CorpusError(f"{path} is empty: there are no lines to embed; nothing was written")
    if n_bad:
        shown = "" if n_bad <= len(bad) else f" (the first {len(bad)} shown)"
        raise CorpusError(
            f"{path}: {n_bad:,} of {num_lines:,} lines are not a sentence of whitespace-separated tokens "
            f"in UTF-8{shown}; nothing was written.\n  " + "\n  ".join(bad)
        )
    return InputScan(num_lines, shard_lines, chunk_tokens)


#: Lines of the input that ``unsplit_tokens`` reads, and the most characters.
SPLIT_SAMPLE_LINES, SPLIT_SAMPLE_CHARS = 1000, 1_000_000
#: The share of an input's tokens with punctuation or a clitic attached (``unsplit_tokens``)
#: above which the input reads as raw text: on the first 1000 lines, 13% for raw Wikinews prose,
#: at most 1.6% for text split by other rules (CoNLL-2003, PTB, SST, WikiText-2).
UNSPLIT_SHARE = 0.05
#: What the model's word splitting cuts off a raw-text token: closing and opening punctuation.
_CLOSING, _OPENING = set(",.!?;:)\"'\u201d\u2019"), set("(\"'\u201c\u2018")


@dataclass
class UnsplitTokens:
    """Of the tokens of an input's first lines, how many carry punctuation or a clitic that the
    model's word splitting cuts off (``unsplit``, of ``tokens``), and the first of them with
    its words (``example``)."""

    tokens: int
    unsplit: int
    example: tuple[str, list[str]] | None

    @property
    def share(self) -> float:
        return self.unsplit / self.tokens if self.tokens else 0.0


def unsplit_tokens(path: PathLike, pre_tokenizer: str, sample_lines: int = SPLIT_SAMPLE_LINES) -> UnsplitTokens:
    """How many tokens of ``path`` (its first ``sample_lines`` lines, at most ``SPLIT_SAMPLE_CHARS``
    characters) the model's own word splitting, ``pre_tokenizer`` (e.g. ``"spacy:en"``), cuts
    punctuation or a clitic off (``"world!"``, ``"(see"``, ``"can't"``): where that is much
    (``UNSPLIT_SHARE``), the input is raw text, not text split as the model's corpus was, and the
    model's vectors for it are worse. Other splits (``"e-mail"``, ``"<unk>"``) are how other
    corpora differ, and do not count. Lines that ``scan_input`` refuses are skipped."""
    found = UnsplitTokens(0, 0, None)
    if pre_tokenizer == WHITESPACE:
        return found
    read = 0
    for number, line in enumerate(read_lines(path, MAX_LINE_CHARS)):
        read += len(line)
        if number == sample_lines or read > SPLIT_SAMPLE_CHARS:
            break
        tokens = line.split()
        if not tokens or len(line) > MAX_LINE_CHARS or undecodable_byte(line) or "\x00" in line:
            continue
        found.tokens += len(tokens)
        kept = set(split_words(" ".join(tokens), pre_tokenizer)[0])
        for token in tokens:
            words = [token] if token in kept else split_words(token, pre_tokenizer)[0]
            if len(words) > 1 and (words[0] in _OPENING or words[-1] in _CLOSING or words[-1][0] in "'\u2019"):
                found.unsplit += 1
                found.example = found.example or (token, words)
    return found


def _line_problem(
    line: str, tokens: list[str], max_token_chars: int | None, max_characters_per_token: int
) -> str | None:
    undecodable = undecodable_byte(line)
    if undecodable:
        return undecodable
    nul = line.find("\x00")
    if nul >= 0:
        return f"NUL byte at character {nul + 1} (binary data, not text)"
    if not tokens:
        return "blank line"
    try:  # strict decoding leaves length as the only per-token problem: check the longest
        token_to_char_ids(max(tokens, key=len), max_characters_per_token, max_token_chars)
    except ValueError as err:
        return str(err)
    return None


# -- the output file --------------------------------------------------------------------------
@dataclass
class EmbedResult:
    """What ``embed_file`` did: ``lines`` and ``tokens`` of its shard, in ``chunks`` chunks of
    which ``chunks_reused`` had been finished by an earlier run; ``index``: the shard index,
    when this run wrote it."""

    output: Path
    lines: int
    tokens: int
    chunks: int
    chunks_reused: int
    index: Path | None = None


def embed_file(
    model: ElmoModel,
    input_path: PathLike,
    output_path: PathLike,
    *,
    model_id: str,
    layers: str = "all",
    batch_tokens: int = DEFAULT_BATCH_TOKENS,
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    shard: Shard = Shard(),
    max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
    overwrite: bool = False,
    show_progress: bool = True,
    pool: str | None = None,
    cuda_graphs: bool = False,
    model_path: PathLike | None = None,
) -> EmbedResult:
    """Embed every line of ``input_path`` (of ``shard``) into an AllenNLP-style HDF5 file.

    Resumes the unfinished run of the same settings; see the module docstring for the format,
    the files written and the crash safety. ``model_id`` names the model in the run's settings
    (a resolved path or a Hub id); the model runs on its own device and dtype. ``model_path``:
    the folder or archive the model was loaded from (default ``model.name_or_path``), which no
    file the run writes may be, hold or lie in.

    Raises ``CorpusError`` for bad input lines, ``FileExistsError`` when the output exists or
    is no regular file (a folder, link or device: ``check_output_file``), ``ValueError`` when an
    unfinished run has other settings (unless ``overwrite``), when the output is the input or
    among the model's files, when the input is not a regular file, or when the input changed
    during the run,
    ``OutputBusyError`` when another run writes the same output, and ``OSError`` (ENOSPC)
    before a write that would fill the disk. ``pool="mean"`` stores one vector per line and
    ``cuda_graphs`` runs the biLM from CUDA graphs (see ``embed_sentences``).
    """
    input_path, target = Path(input_path), shard.output_file(output_path)
    model_files = model_path or model.name_or_path
    _check_run(input_path, target, output_path, shard, layers, pool, batch_tokens, chunk_lines)
    if model_files and Path(model_files).exists():
        _check_not_in_model(target, output_path, Path(model_files))
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = lock_path(target)
    busy = f"{target} is being written by another run (it holds {lock}); wait for it to end or write elsewhere"
    with exclusive_lock(lock, busy):
        partial = _partial_folder(target)
        settings = _run_settings(
            input_path, model, model_id, layers, str(model.dtype).removeprefix("torch."), chunk_lines, shard
        )
        if pool is not None:  # unpooled runs keep the settings of earlier versions, so they resume
            settings["pool"] = pool
        foreign = _foreign_partial(partial)
        if foreign:
            raise FileExistsError(
                f"{partial} exists and is no unfinished run of elmo embed ({foreign}), so it is not "
                "replaced; move it, or write elsewhere"
            )
        previous = _read_run_file(partial, overwrite)
        changed = [] if previous is None else _changed_settings(previous["settings"], settings)
        if changed and not finished_chunks(target)[0]:  # stopped before its first chunk: nothing binds its settings
            previous, changed = None, []
        resumable = previous is not None and not changed
        if previous is not None and not resumable and not overwrite:
            raise ValueError(
                f"{partial} holds an unfinished run with other settings ({', '.join(changed)}); "
                "delete that folder, or pass --overwrite to start again"
            )
        finished = (resumable and _is_merged_output(previous, target)) or (
            not overwrite and _is_emptied_run(partial, target, settings)
        )
        if target.exists() and not finished and not overwrite:
            raise FileExistsError(f"{target} exists; pass --overwrite to replace it")
        if target.exists() and not finished and not _is_embed_output(target):
            raise FileExistsError(
                f"{target} is no output of elmo embed (an HDF5 file with {SENTENCE_TO_INDEX}), so --overwrite does "
                "not replace it; write to another file (delete that one first if you mean to replace it)"
            )
        if shard.count > 1 and shard.index == 0:
            _check_shard_index(shard_index_file(output_path), shard, overwrite)
        if shard.count > 1 and not overwrite:
            _check_other_shards(output_path, shard, _recorded(settings))

        scan = scan_input(input_path, shard, chunk_lines, max_token_chars, model.config.max_characters_per_token)
        chunks = len(scan.chunk_tokens)
        result = EmbedResult(target, scan.shard_lines, sum(scan.chunk_tokens), chunks, chunks_reused=0)
        if finished:  # the last run was stopped after renaming its output, before its partial folder was gone
            result.chunks_reused = chunks
            return _finish(result, partial, output_path, shard, scan, layers)
        if partial.exists() and not resumable:
            _remove_partial(partial)
        partial.mkdir(parents=True, exist_ok=True)
        write_text_atomic(partial / RUN_FILE, json.dumps({"settings": settings}, indent=2) + "\n")

        done = {k for k in range(chunks) if _part_is_complete(partial, k, scan, chunk_lines)}
        result.chunks_reused = len(done)
        todo, labels = tee(
            (index, line.split())
            for index, line in enumerate(read_lines(input_path))
            if shard.owns(index) and shard.chunk_of(index, chunk_lines) not in done
        )
        vectors = embed_sentences(
            model,
            (tokens for _, tokens in todo),
            layers=layers,
            batch_tokens=batch_tokens,
            max_token_chars=max_token_chars,
            pool=pool,
            cuda_graphs=cuda_graphs,
        )
        with tqdm(
            total=result.tokens,
            initial=sum(scan.chunk_tokens[k] for k in done),
            unit="tok",
            unit_scale=True,
            desc=f"embedding {input_path.name}",
            disable=not show_progress,
        ) as bar:
            for chunk, items in groupby(zip(labels, vectors), key=lambda item: shard.chunk_of(item[0][0], chunk_lines)):
                _write_part(_part_file(partial, chunk), items, bar)
        with tqdm(  # the second write of every vector: a while for a large output
            total=result.lines,
            unit="line",
            unit_scale=True,
            desc=f"merging chunks into {target.name}",
            disable=not show_progress,
        ) as bar:
            _merge(partial, target, input_path, shard, chunk_lines, settings, bar)
        return _finish(result, partial, output_path, shard, scan, layers)


def _check_options(layers: str, pool: str | None, batch_tokens: int) -> None:
    """The options that ``embed_sentences`` and ``embed_file`` share: one error each, naming it."""
    if layers not in LAYERS:
        raise ValueError(f"layers must be one of {LAYERS}, got {layers!r}")
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {POOLS}, got {pool!r}")
    if batch_tokens < 1:
        raise ValueError(f"batch_tokens must be at least 1, got {batch_tokens}")


def _check_run(
    input_path: Path,
    target: Path,
    output_path: PathLike,
    shard: Shard,
    layers: str,
    pool: str | None,
    batch_tokens: int,
    chunk_lines: int,
) -> None:
    """Every check that needs no lock and no reading of the input: done before anything is written."""
    _check_options(layers, pool, batch_tokens)
    if chunk_lines < 1:
        raise ValueError(f"chunk_lines must be at least 1, got {chunk_lines}")
    if input_path.is_dir():
        raise ValueError(f"the input {input_path} is a folder; name a text file")
    if str(input_path) == "-" and not input_path.exists():
        raise ValueError(
            "embed cannot read stdin ('-'): it reads the input twice and again to resume; save the text to a file"
        )
    if input_path.exists() and not input_path.is_file():
        raise ValueError(
            f"the input {input_path} is not a regular file (a pipe, stdin or a device?): embed reads it twice "
            "and again to resume; save the text to a file"
        )
    if not input_path.is_file():
        raise FileNotFoundError(f"input file not found: {input_path}")
    if str(output_path).endswith(("/", os.sep)):
        raise ValueError(
            f"the output {output_path} ends with {str(output_path)[-1]!r}, naming a folder; name the HDF5 file to write "
            f"(e.g. {Path(output_path, 'embeddings.hdf5')})"
        )
    check_output_file(target)
    check_parent_folders(target)
    for path in _written_files(target, output_path):
        if is_or_holds(path, input_path) or (path.exists() and os.path.samefile(path, input_path)):
            raise ValueError(f"the output {path} is (or holds) the input {input_path}; write to another file")


def _written_files(target: Path, output_path: PathLike) -> list[Path]:
    """Every path a run writes (and may replace or remove): the output, its temporary file, lock
    file and partial folder, and the shard index."""
    return [
        target,
        temporary_path(target),
        lock_path(target),
        _partial_folder(target),
        shard_index_file(output_path),
    ]


def _check_not_in_model(target: Path, output_path: PathLike, model_files: Path) -> None:
    """Refuse a run that would write over the model's folder or archive or one of its files, or
    whose output folder would hold them (a new file beside the model's files is fine)."""
    model = model_files.resolve()
    files = [f.resolve() for f in model.rglob("*") if f.is_file()] if model.is_dir() else [model]
    for path in _written_files(target, output_path):
        if is_or_holds(path, model):
            raise ValueError(f"the output {path} is or holds the model {model_files}; write it elsewhere")
        if path.resolve() in files or (path.exists() and any(os.path.samefile(path, f) for f in files)):
            raise ValueError(f"the output {path} is a file of the model {model_files}; write it elsewhere")


#: Config fields that say where a model came from, not what it computes (``dtype`` is a setting of its own).
_PROVENANCE_FIELDS = ("_name_or_path", "transformers_version", "dtype", "torch_dtype")


def model_fingerprint(model: ElmoModel) -> str:
    """SHA-256 of what computes a model's vectors: its config (less ``_PROVENANCE_FIELDS``) and
    every entry of its state dict (weights and warm state: name, dtype, shape and values), read
    from memory, so any change to the weights or config changes it whatever the files' dates."""
    config = {k: v for k, v in model.config.to_dict().items() if k not in _PROVENANCE_FIELDS}
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
    for name, tensor in model.state_dict().items():
        digest.update(f"{name} {tensor.dtype} {tuple(tensor.shape)}".encode())
        digest.update(tensor.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
    return digest.hexdigest()


def _run_settings(
    input_path: Path, model: ElmoModel, model_id: str, layers: str, dtype: str, chunk_lines: int, shard: Shard
) -> dict[str, Any]:
    return {
        "input": str(input_path.resolve()),
        **input_identity(input_path),
        "model": model_id,
        "model_sha256": model_fingerprint(model),
        "layers": layers,
        "dtype": dtype,
        "chunk_lines": chunk_lines,
        "shard": f"{shard.index}/{shard.count}",
    }


#: What a run records of its input but that does not make it another input: a file touched or
#: copied (same bytes, same SHA-256) resumes and finishes.
_INPUT_DATE = "input_mtime_ns"


def _changed_settings(previous: dict[str, Any], settings: dict[str, Any]) -> list[str]:
    """The settings in which an unfinished run (``previous``) and this one differ, sorted."""
    keys = (set(previous) | set(settings)) - {_INPUT_DATE}
    return sorted(k for k in keys if previous.get(k) != settings.get(k))


#: The finished chunks' files in a partial folder (``_part_file``).
_PARTS = "part-*.hdf5"


def _part_file(partial: Path, chunk: int) -> Path:
    return partial / f"part-{chunk:06d}.hdf5"


def finished_chunks(target: PathLike) -> tuple[int, Path]:
    """How many finished chunks the unfinished run writing ``target`` (a shard's file) has kept, and
    its partial folder, where the same run resumes from them."""
    partial = _partial_folder(Path(target))
    return len(list(partial.glob(_PARTS))), partial


def output_is_complete(target: PathLike) -> bool:
    """Whether the run writing ``target`` (a shard's file) was stopped once its output was renamed
    into place: its partial folder's ``run.json`` names the file there, and the same command
    finishes the run (it removes the folder; shard 0 writes the index)."""
    target = Path(target)
    return _is_merged_output(_read_run_file(_partial_folder(target), overwrite=True), target)


def _partial_folder(target: Path) -> Path:
    return target.with_name(target.name + ".partial")


def _remove_partial(partial: Path) -> None:
    """Remove a run's partial folder, its ``run.json`` last: a run killed while removing it leaves
    what the next run reads as the same unfinished (or merged) run, never a folder of parts
    without ``run.json``, which ``_foreign_partial`` refuses as someone else's."""
    run_file = partial / RUN_FILE
    for path in partial.iterdir():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path != run_file:
            path.unlink()
    shutil.rmtree(partial)


def _foreign_partial(partial: Path) -> str | None:
    """What makes ``partial`` someone else's (a link, not a folder, a folder with files but no
    ``run.json``), or None if it is absent, empty, an unfinished run's folder or one that a run
    killed while writing its first ``run.json`` left holding that file's temporary file only."""
    if partial.is_symlink():
        return "it is a symbolic link"
    if not partial.exists():
        return None
    if not partial.is_dir():
        return "it is not a folder"
    run_file = partial / RUN_FILE
    if not run_file.exists() and any(path != temporary_path(run_file) for path in partial.iterdir()):
        return f"it has no {RUN_FILE}"
    return None


def _read_run_file(partial: Path, overwrite: bool) -> dict[str, Any] | None:
    """The settings of the unfinished run in ``partial`` (None if there is none, or if its
    ``run.json`` is damaged and ``overwrite`` discards it)."""
    path = partial / RUN_FILE
    if not path.is_file():
        return None
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(run, dict) or not isinstance(run.get("settings"), dict):
            raise ValueError("no 'settings' object")
    except (ValueError, UnicodeDecodeError) as err:
        if overwrite:
            return None
        raise ValueError(f"{path} is damaged ({err}); delete {partial} to start again, or pass --overwrite") from None
    return run


def _part_is_complete(partial: Path, chunk: int, scan: InputScan, chunk_lines: int) -> bool:
    """Whether chunk ``chunk``'s part file is there and readable with all its lines; a damaged
    one (e.g. truncated by a full disk) is removed, to be computed again."""
    path = _part_file(partial, chunk)
    if not path.exists():
        return False
    lines = min(chunk_lines, scan.shard_lines - chunk * chunk_lines)
    try:
        with h5py.File(path, "r") as part:
            if len(part) == lines:
                return True
    except OSError:
        pass
    path.unlink()
    return False


def _write_part(path: Path, items: Iterable[tuple[tuple[int, list[str]], np.ndarray]], bar: tqdm) -> None:
    """One chunk's datasets, written under a temporary name and renamed when complete."""
    with atomic_file(path) as tmp:
        with h5py.File(tmp, "w") as part:
            for (index, tokens), array in items:
                ensure_free_space(tmp, array.nbytes, f"chunk {path.name}", _RESUME)  # HDF5 crashes on a full disk
                part.create_dataset(str(index), data=array)
                bar.update(len(tokens))


def _merge(
    partial: Path,
    target: Path,
    input_path: Path,
    shard: Shard,
    chunk_lines: int,
    settings: dict[str, Any],
    bar: tqdm,
) -> None:
    """Copy every part into ``target`` (via a temporary file) with ``sentence_to_index``, counting
    the lines on ``bar``; the partial folder, whose ``run.json`` then names ``target``, is left for
    ``_finish``. The input must still be the one the run started with."""
    sentence_to_index: dict[str, str] = {}
    owned = ((index, line) for index, line in enumerate(read_lines(input_path)) if shard.owns(index))
    parts_bytes = sum(p.stat().st_size for p in partial.glob(_PARTS))
    with atomic_file(target) as tmp:  # an older output stays in place until this rename
        # checked once atomic_file has removed the OUTPUT.tmp a kill while merging leaves: its bytes are free
        ensure_free_space(tmp, parts_bytes + 2 * input_path.stat().st_size, f"the output {target.name}", _RESUME)
        with h5py.File(tmp, "w") as out:
            for chunk, lines in groupby(owned, key=lambda item: shard.chunk_of(item[0], chunk_lines)):
                try:
                    with h5py.File(_part_file(partial, chunk), "r") as part:
                        for index, line in lines:
                            part.copy(part[str(index)], out, name=str(index))
                            sentence_to_index[line.strip()] = str(index)
                            bar.update()
                except (FileNotFoundError, KeyError):  # a line no chunk holds: has the input grown?
                    _check_input_unchanged(input_path, settings, partial)
                    raise
            dataset = out.create_dataset(SENTENCE_TO_INDEX, (1,), dtype=h5py.special_dtype(vlen=str))
            dataset[0] = json.dumps(sentence_to_index)
            out.attrs[SETTINGS_ATTRIBUTE] = json.dumps(_recorded(settings))
        _check_input_unchanged(input_path, settings, partial)
        # what tells a resumed run that the output it finds is this one, not one it was to replace
        write_text_atomic(
            partial / RUN_FILE, json.dumps({"settings": settings, "output": _identity(tmp)}, indent=2) + "\n"
        )


def _recorded(settings: dict[str, Any]) -> dict[str, Any]:
    """What an output file records of its run's ``settings`` (``SETTINGS_ATTRIBUTE``)."""
    return {key: settings.get(key) for key in _RECORDED_SETTINGS}


def _read_recorded(handle: h5py.File) -> dict[str, Any] | None:
    """The settings an output file records; None for one written before outputs recorded them."""
    text = handle.attrs.get(SETTINGS_ATTRIBUTE)
    return None if text is None else json.loads(text)


def _differing_setting(first: dict[str, Any] | None, second: dict[str, Any] | None) -> tuple[str, str, str] | None:
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
            if key == "input_sha256":
                shown = [f"SHA-256 {r[key][:12]}..." for r in (first, second)]
            elif key == "model_sha256":
                shown = [f"{r['model']}, SHA-256 {r[key][:12]}..." for r in (first, second)]
            else:
                shown = ["none" if r.get(key) is None else str(r[key]) for r in (first, second)]
            return name, shown[0], shown[1]
    return None


def _check_other_shards(output_path: PathLike, shard: Shard, record: dict[str, Any]) -> None:
    """Refuse a shard run whose settings differ from those of another finished shard of the same output."""
    for index in range(shard.count):
        other = Shard(index, shard.count).output_file(output_path)
        if index == shard.index or not other.is_file():
            continue
        try:
            with h5py.File(other, "r") as handle:
                differ = _differing_setting(record, _read_recorded(handle))
        except OSError as err:
            raise ValueError(f"{other}, shard {index} of this output, cannot be read ({err}); delete it") from None
        if differ:
            name, mine, theirs = differ
            raise ValueError(
                f"{other}, shard {index} of this output, differs in {name} ({theirs}; this run: {mine}); "
                "run every shard with the same settings, or write to another output (or pass --overwrite, then "
                "run the other shards again)"
            )


def _check_input_unchanged(input_path: Path, settings: dict[str, Any], partial: Path) -> None:
    """Raise (discarding the unfinished run) if the input's content is not the one the run started
    with. The same size and date as at the start need no hashing; a file only touched or copied
    (another date, the same SHA-256) is the same input."""
    stat = input_path.stat()
    if (stat.st_size, stat.st_mtime_ns) == (settings["input_bytes"], settings[_INPUT_DATE]):
        return
    now = input_identity(input_path)
    changed = [k for k in ("input_bytes", "input_sha256") if settings[k] != now[k]]
    if changed:
        _remove_partial(partial)
        raise ValueError(
            f"{input_path} changed while it was embedded ({', '.join(changed)} differ); nothing "
            "was written and the unfinished run was discarded: run the command again"
        )


def _identity(path: Path) -> list[int]:
    """Device, inode, size and mtime of a file: kept by a rename, changed by any other file."""
    stat = path.stat()
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns]


def _is_merged_output(run: dict[str, Any] | None, target: Path) -> bool:
    """Whether ``target`` is the output that the run of ``run.json`` merged (it was killed after
    the rename, before removing its partial folder), not an older file it was to replace."""
    return run is not None and target.is_file() and run.get("output") == _identity(target)


def _is_emptied_run(partial: Path, target: Path, settings: dict[str, Any]) -> bool:
    """Whether ``target`` is the finished output of a run of ``settings`` that was killed removing
    its partial folder once its ``run.json`` was gone: ``partial`` is left empty, and ``target``
    records these settings, as the same command writes it."""
    if not partial.is_dir() or any(partial.iterdir()) or not target.is_file() or not h5py.is_hdf5(target):
        return False
    try:
        with h5py.File(target, "r") as handle:
            return _read_recorded(handle) == _recorded(settings)
    except OSError:  # a damaged HDF5 file
        return False


def _is_embed_output(path: Path) -> bool:
    """Whether the file ``path`` is an output of ``elmo embed`` (or of ``allennlp elmo``, the
    format it follows): an HDF5 file that records its settings or holds ``sentence_to_index``.
    ``--overwrite`` replaces such a file only."""
    if not path.is_file() or not h5py.is_hdf5(path):
        return False
    try:
        with h5py.File(path, "r") as handle:
            return SETTINGS_ATTRIBUTE in handle.attrs or SENTENCE_TO_INDEX in handle
    except OSError:  # a damaged HDF5 file
        return False


def _check_shard_index(index: Path, shard: Shard, overwrite: bool) -> None:
    """Refuse, before shard 0 of ``shard.count`` computes anything, to replace ``index`` when it
    is not a shard index of ``elmo embed`` (a user's file), or, unless ``overwrite``, one of this
    output with another number of shards (whose shard files it would orphan)."""
    if not index.exists():
        return
    try:
        record = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        record = None
    if not isinstance(record, dict) or record.get("format") != INDEX_FORMAT:
        raise FileExistsError(
            f"{index} exists and is no shard index of elmo embed, so it is not replaced; move it, or write to "
            "another output"
        )
    if record.get("num_shards") != shard.count and not overwrite:
        raise FileExistsError(
            f"{index} indexes {record.get('num_shards')} shards of this output, and this run is shard {shard.index} "
            f"of {shard.count}; run the shards of that count, write to another output, or pass --overwrite (then "
            f"run the other shards of {shard.count} too)"
        )


def _finish(
    result: EmbedResult, partial: Path, output: PathLike, shard: Shard, scan: InputScan, layers: str
) -> EmbedResult:
    """Once the output is in place: shard 0 of several writes the shard index, then the run's
    ``partial`` folder is removed, last, so that a run stopped before has left the folder by which
    the same command finishes (``_is_merged_output``), index included."""
    if shard.count > 1 and shard.index == 0:
        result.index = _write_shard_index(output, shard, scan.num_lines, layers)
    _remove_partial(partial)
    return result


# -- reading ----------------------------------------------------------------------------------
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
    index = json.loads(path.read_text(encoding="utf-8"))
    if index.get("format") != INDEX_FORMAT:
        raise ValueError(f"{path} is not a shard index of elmo embed (format {index.get('format')!r})")
    files = [path.parent / name for name in index["files"]]
    for file in files:
        if not file.is_file():
            raise FileNotFoundError(f"{file}, listed in {path}, is missing: has every shard finished?")
    embeddings = Embeddings([h5py.File(file, "r") for file in files], index["num_lines"])
    first = _read_recorded(embeddings.files[0])
    for file, handle in zip(files[1:], embeddings.files[1:]):
        differ = _differing_setting(first, _read_recorded(handle))
        if differ:
            embeddings.close()
            name, ours, theirs = differ
            raise ValueError(
                f"{path}: its shards differ in {name} ({files[0].name}: {ours}; {file.name}: {theirs}); "
                "run every shard again with the same settings (--overwrite)"
            )
    return embeddings


def _open_file(path: Path) -> Embeddings:
    """One output file: a whole run's or one shard's."""
    if not path.exists():
        shards = Shard.shard_files(path)
        found = f"; there are shard files ({shards[0].name}, ...) but no index: has shard 0 finished?" if shards else ""
        raise FileNotFoundError(f"{path} not found{found}")
    handle = h5py.File(path, "r")
    recorded = _read_recorded(handle)
    lone_shard = Shard.is_shard_file(path) if recorded is None else recorded.get("shard", "0/1") != "0/1"
    return Embeddings([handle], len(handle) - (SENTENCE_TO_INDEX in handle), lone_shard)
