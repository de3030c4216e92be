"""The resumable file run (``embed_file``): every line of a text file (of its shard) into an
AllenNLP-style HDF5 file, through a partial folder of finished chunks.

What a run writes and promises (the AllenNLP ``allennlp elmo`` format, with its few differences;
validation first; resume; one run per output; sharding; bounded memory) is told once, for users,
in README.md, section "Bulk embedding (``elmo embed``)"; the CLI's help points there. What
follows is how this module keeps those promises.

**Validation first**: one pass over the input (``scan_input``) checks every line and raises
``CorpusError`` naming the file, the bad lines and their count before anything is written.

**Resume and crash safety**: a run's lines are cut into chunks of ``chunk_lines`` consecutive
lines (of its shard). A finished chunk is written to ``OUTPUT.partial/part-NNNNNN.hdf5`` under a
temporary name, fsynced and renamed (``fileio.atomic_file``), so a part file is either complete
or absent whenever the process dies; ``OUTPUT.partial/run.json`` records the settings (input
path, size, mtime and SHA-256, model, the model's fingerprint ``model_sha256``, layers, dtype,
chunk size, shard). ``model_sha256`` (``model_fingerprint``) hashes what computes the vectors, the
model in memory: its config less where it was loaded from, and its state dict (weights and warm
state: once a run, one SHA-256 pass over the shipped model's 54 MB of float32, 1.1-1.3x
``hashlib.sha256`` over as many bytes once read; 0.15-0.21 s the first time, as a run makes it, on a
shared 2-core AMD EPYC VM at load 7:
``pytest -m slow -s tests/hf_elmo/test_fingerprint_speed.py``), so a model changed
in place (same folder, other weights) is another setting, never a resumed run mixing two models (the
digest that hf-elmo 0.6.0 recorded, of another form, is recognised as the model's: ``_digest_as_recorded``).
Run again with the same settings, it skips the finished chunks (batch size, device and threads may change: they change
the vectors by float rounding at most) and computes a damaged one again; other settings are an
error unless ``overwrite`` once a chunk is finished (before that nothing binds them: a run of
other settings replaces ``run.json`` and starts afresh); the input's date is no setting (a file
touched or copied with the same content resumes: its SHA-256 is). When every chunk is done the
parts are copied into a temporary output (``.OUTPUT.XXXXXXXX.tmp``, ``atomic_file``'s), the
input's content is checked to be unchanged (its size and date as at the start, or else its
SHA-256; else: an error, nothing written, the run discarded), ``run.json`` records the identity
(device, inode, size, mtime) of that file, which is renamed to OUTPUT, shard 0 of several writes the index, and the partial folder
is removed last (its ``run.json`` after the parts, so that a run killed meanwhile leaves a folder
the next run knows as this run's, and finishes: index included). With ``overwrite`` an old
OUTPUT stays until that rename replaces it, so a run that fails or is killed loses nothing; an
OUTPUT beside a matching partial folder is a finished one only if it is the file ``run.json``
names, and beside an empty partial folder (killed after removing ``run.json``) only if it records
the run's settings (``SETTINGS_ATTRIBUTE``): the same command then finishes, saying the output
is written, as for a folder with ``run.json``; other settings are told the output exists, and
``overwrite`` replaces it.
A write that would fill the disk stops the run first (HDF5 crashes on a full disk), keeping the
finished parts; the temporary output that a kill while merging leaves is removed by the next run
once it holds the lock (``remove_stale_temporaries``, as are those of the parts), before it checks
the free space, so its bytes never stop the run that would remove it.

**One run per output**: a run holds ``OUTPUT.lock`` (``fileio.sole_writer``) from before it
reads ``run.json`` until it ends; a second run on the same output fails at once. The output may
not be the input, a folder, a link or a device, nor may its ``OUTPUT.lock`` be a
folder (``check_output``, which ``elmo embed`` runs before it loads the model, not only at the final
rename), nor be one of the model's files or hold them, even with ``overwrite``
(``_check_not_in_model``; a new file beside them is written).
The input must be a regular file (it is read twice, and again on resume): not stdin or a pipe.

**Sharding** (``shards``: a shard's lines, its file, the index): shard 0 of several writes the
index before it removes its partial folder (see above). A shard run whose input, model, layers,
pool or dtype differ from those that a finished shard of the same output records (``output``)
is refused (unless ``overwrite``), and so is one beside a file at OUTPUT itself, as is a run without
shards beside a sharded run's index (``check_output``; ``overwrite`` or not).

**Memory** does not grow with the input: ``embed_sentences`` streams the arrays (``sentences``),
and they are written as they come. What does grow with the lines: ``sentence_to_index``, one JSON
string of every line's text, built while merging, and HDF5's index of the datasets of the open
file (its metadata cache is bounded; the names' heap grows by a few bytes a line).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby, tee
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import torch
from tqdm.auto import tqdm

from ..corpus import check_text_file, read_lines
from ..fileio import (
    HDF5_DATASET_BYTES,
    HDF5_FILE_BYTES,
    PathLike,
    atomic_file,
    check_file_size_limit,
    check_locked_output,
    check_names_a_file,
    ensure_free_space,
    input_identity,
    is_or_holds,
    is_temporary_file,
    lock_path,
    remove_stale_temporaries,
    sole_writer,
    write_text_atomic,
)
from ..messages import described, error_reason
from ..modeling_elmo import ElmoModel, check_reads_char_ids
from .output import (
    SENTENCE_TO_INDEX,
    SETTINGS_ATTRIBUTE,
    differing_setting,
    is_embed_output,
    is_line,
    line_shape,
    read_recorded_settings,
    recorded_settings,
)
from .scan import InputScan, scan_input
from .sentences import (
    DEFAULT_BATCH_TOKENS,
    LAYERS,
    TOKENIZER_LIMIT,
    TokenizerLimit,
    check_options,
    embed_sentences,
    model_token_limit,
    refuse_batch_size,
    renamed_tokens_per_batch,
)
from .shards import DEFAULT_CHUNK_LINES, Shard, check_shard_index, shard_index_file, write_shard_index

RUN_FILE = "run.json"
#: What to do when the disk is full.
_RESUME = "run the same command again: the finished chunks are kept"


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
    model_id: str | None = None,
    layers: str = "all",
    tokens_per_batch: int = DEFAULT_BATCH_TOKENS,
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    shard: Shard = Shard(),
    max_token_chars: int | None | TokenizerLimit = TOKENIZER_LIMIT,
    overwrite: bool = False,
    show_progress: bool = True,
    pool: str | None = None,
    cuda_graphs: bool = False,
    model_path: PathLike | None = None,
    batch_tokens: int | None = None,
    batch_size: int | None = None,
    output_format: str | None = None,
) -> EmbedResult:
    """Embed every line of ``input_path`` (of ``shard``) into an AllenNLP-style HDF5 file (``output_path``;
    ``~`` in the paths is the home folder).

    Resumes the unfinished run of the same settings; see the module docstring for the format,
    the files written and the crash safety. ``model_id`` names the model in the run's settings
    (a resolved path or a Hub id; default: ``model_path`` resolved where it is a local path, as
    ``elmo embed`` names it, else as it is; ``model_sha256`` identifies the weights either way);
    the model runs on its own device and dtype. ``model_path``: the folder or archive the model was
    loaded from (default ``model.name_or_path``), which no file the run writes may be or hold (a file
    beside its files may be written).

    Raises ``CorpusError`` for bad input lines, ``FileExistsError`` when the output exists or
    is no regular file (a folder, link or device: ``check_output_file``), ``ValueError`` when an
    unfinished run has other settings (unless ``overwrite``), when the output is the input or
    among the model's files, when the input is a pipe or device, or when the input changed during
    the run (an input that is a folder or is missing: ``IsADirectoryError``, ``FileNotFoundError``,
    as ``corpus.check_text_file`` refuses every text input),
    ``OutputBusyError`` when another run writes the same output, and ``OSError`` (ENOSPC)
    before a write that would fill the disk. ``max_token_chars``: longer tokens are a bad line
    (``None``: truncated as the original does), by default the limit of the model's saved tokenizer, as
    ``elmo embed``'s (``model_token_limit``). ``pool="mean"`` stores one vector per line and
    ``cuda_graphs`` runs the biLM from CUDA graphs (see ``embed_sentences``). ``batch_tokens``: the old
    name of ``tokens_per_batch`` (``renamed_tokens_per_batch``). ``batch_size`` and ``output_format``, and an
    open file as ``input_path``, are AllenNLP's ``ElmoEmbedder.embed_file``'s: refused (``TypeError``), naming
    this function's way (``_refuse_allennlp_arguments``).
    """
    _refuse_allennlp_arguments(input_path, batch_size, output_format)
    check_reads_char_ids(model, "embed_file")
    tokens_per_batch = renamed_tokens_per_batch(tokens_per_batch, batch_tokens, "embed_file")
    max_token_chars = model_token_limit(model, max_token_chars)  # once: the scan and the run check the same limit
    # "~/in.txt" from Python: the home folder's, as the shell would have it (never a folder named "~")
    input_path, output_path = Path(input_path).expanduser(), os.path.expanduser(output_path)
    target = shard.output_file(output_path)
    _check_run(input_path, target, output_path, shard, layers, pool, tokens_per_batch, chunk_lines)
    model_id = _checked_model_id(model, model_path, model_id, target, output_path)
    check_hdf5_name(output_path)  # after the input's and the model's files are told apart from it
    target.parent.mkdir(parents=True, exist_ok=True)
    with sole_writer(target):  # removes the temporary files of the output that a kill while merging left
        partial = _partial_folder(target)
        settings = _run_settings(
            input_path, model, model_id, layers, str(model.dtype).removeprefix("torch."), chunk_lines, shard
        )
        if pool is not None:  # unpooled runs keep the settings of earlier versions, so they resume
            settings["pool"] = pool
        recorded = _recorded_digests(partial, output_path, shard)
        settings["model_sha256"] = _digest_as_recorded(model, settings["model_sha256"], recorded)
        resumable, finished = _previous_run(partial, target, settings, overwrite)
        if shard.count > 1 and shard.index == 0:
            check_shard_index(shard_index_file(output_path), shard, overwrite)
        if shard.count > 1 and not overwrite:
            _check_other_shards(output_path, shard, recorded_settings(settings))

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

        shape = _line_shape(model, layers, pool)
        done = {k for k in range(chunks) if _part_is_complete(partial, k, scan, chunk_lines, shape)}
        result.chunks_reused = len(done)
        todo, labels = tee(_unfinished_lines(input_path, shard, chunk_lines, done))
        vectors = embed_sentences(
            model,
            (tokens for _, tokens in todo),
            layers=layers,
            tokens_per_batch=tokens_per_batch,
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


def _checked_model_id(
    model: ElmoModel, model_path: PathLike | None, model_id: str | None, target: Path, output_path: PathLike
) -> str:
    """The model's name in the run's settings: ``model_id`` if given, else its local folder or archive
    (``model_path``, else ``model.name_or_path``) resolved, else that name as it is (a Hub id, or "" for
    a model built in memory). A local model's files are first checked to be none of the files the run
    writes, nor held by them (``_check_not_in_model``)."""
    # "" for a model built in memory (from_allennlp)
    model_files = os.path.expanduser(model_path) if model_path else model.name_or_path
    local_model = Path(model_files) if model_files and Path(model_files).exists() else None
    if local_model is not None:
        _check_not_in_model(target, output_path, local_model)
    if model_id is not None:
        return model_id
    return str(local_model.resolve()) if local_model is not None else str(model_files)


def _previous_run(partial: Path, target: Path, settings: dict[str, Any], overwrite: bool) -> tuple[bool, bool]:
    """What an earlier run of this output left, as ``(resumable, finished)``: whether the unfinished
    run in ``partial`` has these ``settings`` (so its finished chunks are kept), and whether ``target``
    is already the finished output of a run of them (killed before its partial folder was gone).

    Refuses, in this order: a ``partial`` folder that is no run of elmo embed's; an unfinished run
    of other settings that has finished a chunk (unless ``overwrite``); an existing ``target`` that
    is no finished output of this run (unless ``overwrite``), or is no output of elmo embed at all
    (even with ``overwrite``). Removes the temporary files that a kill left in ``partial``."""
    foreign = _foreign_partial(partial)
    if foreign:
        raise FileExistsError(
            f"{partial} exists and is no unfinished run of elmo embed ({foreign}), so it is not "
            "replaced; move it, or write elsewhere"
        )
    remove_stale_temporaries(partial)  # of a part or run.json
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
    if target.exists() and not finished and not is_embed_output(target):
        raise FileExistsError(
            f"{target} is no output of elmo embed (an HDF5 file with {SENTENCE_TO_INDEX}), so --overwrite does "
            "not replace it; write to another file (delete that one first if you mean to replace it)"
        )
    return resumable, finished


def _unfinished_lines(
    input_path: Path, shard: Shard, chunk_lines: int, done: set[int]
) -> Iterator[tuple[int, list[str]]]:
    """The lines still to embed, as (line index, words): those of ``shard`` in no chunk of ``done``."""
    for index, line in enumerate(read_lines(input_path)):
        if shard.owns(index) and shard.chunk_of(index, chunk_lines) not in done:
            yield index, line.split()


def _refuse_allennlp_arguments(input_path: Any, batch_size: int | None, output_format: str | None) -> None:
    """Refuse what AllenNLP's ``ElmoEmbedder.embed_file(input_file, output_file_path, output_format,
    batch_size)`` took and ``embed_file`` does not, each naming ``embed_file``'s way: an open file (the
    input is read more than once, by its path), ``output_format`` (``layers``), ``batch_size``
    (``tokens_per_batch``)."""
    if not isinstance(input_path, (str, os.PathLike)):
        name = getattr(input_path, "name", None)
        path = f"its path ({name!r})" if isinstance(name, str) else "its path"
        raise TypeError(
            f"embed_file() takes the input file's path, not {described(input_path)} (ElmoEmbedder.embed_file "
            f"took an open file): pass {path}; the input is read more than once, and again to resume"
        )
    if output_format is not None:
        raise TypeError(
            f"embed_file() takes no output_format (ElmoEmbedder.embed_file's): use layers={output_format!r} "
            f"(one of {LAYERS})"
        )
    refuse_batch_size(batch_size, "embed_file")


def _check_run(
    input_path: Path,
    target: Path,
    output_path: PathLike,
    shard: Shard,
    layers: str,
    pool: str | None,
    tokens_per_batch: int,
    chunk_lines: int,
) -> None:
    """Every check that needs no lock and no reading of the input: done before anything is written."""
    check_options(layers, pool, tokens_per_batch)
    if chunk_lines < 1:
        raise ValueError(f"chunk_lines must be at least 1, got {chunk_lines}")
    check_text_file(input_path, "the input")  # stdin ('-') too: it is read twice, and again to resume
    check_output(output_path, shard)
    for path in _written_files(target, output_path):
        if is_or_holds(path, input_path) or (path.exists() and os.path.samefile(path, input_path)):
            raise ValueError(f"the output {path} is (or holds) the input {input_path}; write to another file")


#: The suffixes of an HDF5 file's name.
HDF5_SUFFIXES = (".hdf5", ".h5", ".hdf", ".he5")
#: Suffixes of other formats, refused on ``embed_file``'s output (``check_output``): an HDF5 file written under such a
#: name is one that numpy, pandas, a text editor or gzip then fail to read.
OTHER_FORMATS = (
    *(".txt", ".npy", ".npz", ".json", ".jsonl", ".csv", ".tsv", ".pt", ".pth", ".pkl", ".pickle", ".parquet"),
    *(".safetensors", ".gz", ".zip", ".xz", ".bz2", ".zst"),
)


def check_hdf5_name(output_path: PathLike) -> None:
    """A ``ValueError`` where the output is named as a file of another format (``OTHER_FORMATS``: ``vectors.npy``),
    naming the HDF5 name to give (was: an HDF5 file written under that name)."""
    suffix = Path(output_path).suffix
    if suffix.lower() in OTHER_FORMATS:
        instead = Path(output_path).with_suffix("")  # run.v2.npy: run.v2.hdf5; out.hdf5.gz: out.hdf5
        instead = instead if instead.suffix.lower() in HDF5_SUFFIXES else instead.with_name(instead.name + ".hdf5")
        raise ValueError(
            f"the output {output_path} is named as a {suffix} file, but embed writes an HDF5 file (AllenNLP's layout): "
            f"name it as one, e.g. {instead}"
        )


def check_output(output_path: PathLike, shard: Shard) -> Path:
    """Refuse, in one line, an output of ``embed_file`` (the file of ``shard``, ``Shard.output_file``) that could not be
    written, before a run loads its model or reads its input (``elmo embed``): ``-`` (stdout), a path ending with a
    slash, one named as a file of another format (``check_hdf5_name``: ``vectors.npy``), or one that ``sole_writer`` and
    ``atomic_file`` could not write (``check_locked_output``: no regular file, a lock file's place that holds something
    of the user's, a file on the way to it, a folder this process cannot write in), and, for one of several shards, a
    file at ``output_path`` itself (a run without shards wrote it), which ``open_embeddings(output_path)`` would open
    instead of the shards' index; for a run without shards, the index of a sharded run at ``output_path``
    (``shard_index_file``), which would go on naming the old shards beside the new file. Neither is removed with
    ``overwrite``: they are not the file it replaces. Returns the output file."""
    if str(output_path) == "-" and not Path(output_path).exists():
        raise ValueError(
            "embed cannot write stdout ('-'): its output is an HDF5 file, written aside and renamed into place; "
            "name the file to write (e.g. embeddings.hdf5)"
        )
    check_names_a_file(output_path, "HDF5 file", "embeddings.hdf5")
    if not Path(output_path).exists():  # an existing one: the input or a model's file, said first (embed_file)
        check_hdf5_name(output_path)
    index = shard_index_file(output_path)
    if shard.count > 1 and Path(output_path).is_file():
        raise FileExistsError(
            f"{output_path} exists (a run without shards wrote it): open_embeddings({str(output_path)!r}) would open "
            f"it, not the index of these shards ({index.name}); move or delete it, or write the shards to another "
            "output"
        )
    if shard.count == 1 and index.exists():
        raise FileExistsError(
            f"{index} exists (a sharded run wrote it): open_embeddings({str(index)!r}) would go on reading its "
            "shards, not this run's file; move or delete it and its shard files, or write to another output"
        )
    return check_locked_output(shard.output_file(output_path))


def _written_files(target: Path, output_path: PathLike) -> list[Path]:
    """Every path a run writes (and may replace or remove): the output, its lock file and partial
    folder, and the shard index (the temporary files beside them have names no other file has)."""
    return [
        target,
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


#: Config fields that say where a model came from, not what it computes (``dtype`` is a setting of its own;
#: ``save_pretrained`` rewrites ``architectures`` and ``auto_map`` to the class saved, e.g. the shipped
#: ``ElmoForBidirectionalLM``'s as ``ElmoModel``'s, so that a biLM saved inside a spaCy pipeline keeps its digest).
_PROVENANCE_FIELDS = ("_name_or_path", "transformers_version", "dtype", "torch_dtype", "architectures", "auto_map")


def model_fingerprint(model: ElmoModel) -> str:
    """SHA-256 of what computes a model's vectors: its config (less ``_PROVENANCE_FIELDS``) and
    every entry of its state dict (weights and warm state: name, dtype, shape and values), read
    from memory, so any change to the weights or config changes it whatever the files' dates."""
    return _fingerprint(model, {k: v for k, v in model.config.to_dict().items() if k not in _PROVENANCE_FIELDS})


#: The config fields that hf-elmo 0.6.0's ``model_fingerprint`` did not leave out (``_PROVENANCE_FIELDS``
#: gained them after) and those it did not have, ``ElmoConfig`` having gained them after: what
#: ``_digests_of_0_6`` hashes as 0.6.0 did.
_HASHED_BY_0_6 = ("architectures", "auto_map")
_UNKNOWN_TO_0_6 = ("pad_token_id", "pre_tokenizer")
#: The shipped model's ``auto_map`` in hf-elmo 0.6.0 (its heads' entries came after).
_SHIPPED_AUTO_MAP_0_6 = {
    "AutoConfig": "configuration_elmo.ElmoConfig",
    "AutoModel": "modeling_elmo.ElmoModel",
    "AutoModelForPreTraining": "modeling_lm.ElmoForBidirectionalLM",
}


def _digests_of_0_6(model: ElmoModel) -> Iterator[str]:
    """``model``'s fingerprint as hf-elmo 0.6.0 computed it (its config's ``architectures`` and
    ``auto_map`` hashed, the fields it did not have left out), then as it computed the shipped
    model's, whose ``auto_map`` has changed since (``_SHIPPED_AUTO_MAP_0_6``): computed one at a
    time, for the caller to stop at the first it knows."""
    left_out = set(_PROVENANCE_FIELDS + _UNKNOWN_TO_0_6) - set(_HASHED_BY_0_6)
    config = {k: v for k, v in model.config.to_dict().items() if k not in left_out}
    yield _fingerprint(model, config)
    if config.get("auto_map") != _SHIPPED_AUTO_MAP_0_6:
        yield _fingerprint(model, {**config, "auto_map": _SHIPPED_AUTO_MAP_0_6})


def _digest_as_recorded(model: ElmoModel, digest: str, recorded: set[str]) -> str:
    """The digest by which this run knows ``model`` (its fingerprint ``digest``): the one an earlier
    run of this output recorded (``recorded``) where that is ``model``'s as hf-elmo 0.6.0 computed it,
    so that a run it started resumes, and its shards match, after an upgrade; else ``digest``."""
    if not recorded or digest in recorded:
        return digest
    return next((old for old in _digests_of_0_6(model) if old in recorded), digest)


def _recorded_digests(partial: Path, output_path: PathLike, shard: Shard) -> set[str]:
    """The model digests that earlier runs of this output recorded: its unfinished run's
    ``run.json`` and its shards' finished files (one that cannot be read is left to the checks that
    name it)."""
    run = _read_run_file(partial, overwrite=True)  # None where there is none, or a damaged one
    found: list[Any] = [] if run is None else [run["settings"].get("model_sha256")]
    for index in range(shard.count):
        path = Shard(index, shard.count).output_file(output_path)
        try:
            if path.is_file():  # not a fifo, which would block
                with h5py.File(path, "r") as handle:
                    found.append((read_recorded_settings(handle) or {}).get("model_sha256"))
        except (OSError, ValueError):
            pass
    return {digest for digest in found if isinstance(digest, str)}


def _fingerprint(model: ElmoModel, config: dict[str, Any]) -> str:
    """SHA-256 of ``config`` (what is hashed of ``model``'s config) and ``model``'s state dict."""
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
    if not run_file.exists() and any(not is_temporary_file(path, RUN_FILE) for path in partial.iterdir()):
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


def _line_shape(model: ElmoModel, layers: str, pool: str | None) -> tuple[int | None, ...]:
    """The shape of every line's array that a run of ``layers`` and ``pool`` writes (``line_shape``)."""
    return line_shape(layers, pool, model.config.num_hidden_layers + 1, model.config.output_dim)


def _part_is_complete(
    partial: Path, chunk: int, scan: InputScan, chunk_lines: int, shape: tuple[int | None, ...]
) -> bool:
    """Whether chunk ``chunk``'s part file is there and readable with all its lines, each a float32
    array of ``shape`` (``_line_shape``), their tokens the chunk's; a damaged one (e.g. truncated by
    a full disk, or edited by hand) is removed, to be computed again."""
    path = _part_file(partial, chunk)
    if not path.exists():
        return False
    lines = min(chunk_lines, scan.shard_lines - chunk * chunk_lines)
    try:
        with h5py.File(path, "r") as part:
            arrays = [part[name] for name in part]
            if len(arrays) == lines and all(is_line(array, shape) for array in arrays):
                tokens = sum(array.shape[shape.index(None)] for array in arrays) if None in shape else None
                if tokens in (None, scan.chunk_tokens[chunk]):
                    return True
    except (OSError, KeyError):  # KeyError: a link to nothing
        pass
    path.unlink()
    return False


def _write_part(path: Path, items: Iterable[tuple[tuple[int, list[str]], np.ndarray]], bar: tqdm) -> None:
    """One chunk's datasets, written under a temporary name and renamed when complete."""
    with atomic_file(path) as tmp:
        with h5py.File(tmp, "w") as part:
            # part.create_dataset(str(index), data=array) below, in h5py's low-level calls: the same bytes
            # (no dates, as create_dataset makes them) faster: with create_dataset, whose Python costs some 40 µs
            # a line, a chunk's write takes 1.21x as long (python scripts/bench_overheads.py hdf5-write
            # --n-sentences 1000 --repeat 3: 213 against 176 µs a line of the shipped model's layers, one
            # CPU thread of a shared 2-core AMD EPYC VM, load 3.9)
            untimed = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            untimed.set_obj_track_times(False)
            folder, what = tmp.parent, f"chunk {path.name}"  # the folder: the file would cost a stat a line
            written = HDF5_FILE_BYTES
            for (index, tokens), array in items:
                ensure_free_space(folder, array.nbytes, what, _RESUME)  # HDF5 crashes on a full disk
                written += array.nbytes + HDF5_DATASET_BYTES
                check_file_size_limit(written, what, _RESUME)  # and on a write past ulimit -f
                array = np.ascontiguousarray(array)
                space = h5py.h5s.create_simple(array.shape)
                dataset = h5py.h5d.create(part.id, str(index).encode(), _hdf5_type(array.dtype), space, dcpl=untimed)
                dataset.write(h5py.h5s.ALL, h5py.h5s.ALL, array)
                bar.update(len(tokens))


@functools.cache
def _hdf5_type(dtype: np.dtype) -> h5py.h5t.TypeID:
    """HDF5's type of ``dtype``'s arrays, as h5py's ``create_dataset`` makes it (cached: h5py builds it anew
    at each call, and ``_write_part`` asks for it every line)."""
    return h5py.h5t.py_create(dtype, logical=True)


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
        # the temporary output a kill while merging leaves is removed when the run takes the lock: its bytes are free
        merged_bytes = parts_bytes + 2 * input_path.stat().st_size  # the datasets, and sentence_to_index's text
        ensure_free_space(tmp, merged_bytes, f"the output {target.name}", _RESUME)
        check_file_size_limit(merged_bytes, f"the output {target.name}", _RESUME)
        with h5py.File(tmp, "w") as out:
            for chunk, lines in groupby(owned, key=lambda item: shard.chunk_of(item[0], chunk_lines)):
                try:
                    with h5py.File(_part_file(partial, chunk), "r") as part:
                        for index, line in lines:
                            name = str(index).encode()  # copied by name: opening the dataset took as long as copying it
                            h5py.h5o.copy(part.id, name, out.id, name)
                            sentence_to_index[line.strip()] = str(index)
                            bar.update()
                # a line no chunk holds (h5o.copy's RuntimeError: no such object): has the input grown?
                except (FileNotFoundError, RuntimeError):
                    _check_input_unchanged(input_path, settings, partial)
                    raise
            dataset = out.create_dataset(SENTENCE_TO_INDEX, (1,), dtype=h5py.special_dtype(vlen=str))
            dataset[0] = json.dumps(sentence_to_index)
            out.attrs[SETTINGS_ATTRIBUTE] = json.dumps(recorded_settings(settings))
        _check_input_unchanged(input_path, settings, partial)
        # what tells a resumed run that the output it finds is this one, not one it was to replace
        write_text_atomic(
            partial / RUN_FILE, json.dumps({"settings": settings, "output": _identity(tmp)}, indent=2) + "\n"
        )


def _check_other_shards(output_path: PathLike, shard: Shard, record: dict[str, Any]) -> None:
    """Refuse a shard run whose settings differ from those of another finished shard of the same output."""
    for index in range(shard.count):
        other = Shard(index, shard.count).output_file(output_path)
        if index == shard.index or not other.is_file():
            continue
        try:
            with h5py.File(other, "r") as handle:
                recorded = read_recorded_settings(handle)  # a damaged record: its ValueError names the file
        except OSError as err:
            raise ValueError(
                f"{other}, shard {index} of this output, cannot be read ({error_reason(err)}); delete it"
            ) from None
        differ = differing_setting(record, recorded)
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
            return read_recorded_settings(handle) == recorded_settings(settings)
    except (OSError, ValueError):  # a damaged HDF5 file, or settings record
        return False


def _finish(
    result: EmbedResult, partial: Path, output: PathLike, shard: Shard, scan: InputScan, layers: str
) -> EmbedResult:
    """Once the output is in place: shard 0 of several writes the shard index, then the run's
    ``partial`` folder is removed, last, so that a run stopped before has left the folder by which
    the same command finishes (``_is_merged_output``), index included."""
    if shard.count > 1 and shard.index == 0:
        result.index = write_shard_index(output, shard, scan.num_lines, layers)
    _remove_partial(partial)
    return result
