"""Writing files and folders so that nothing is lost and nothing is left half-written.

- ``atomic_file(path)``: write a file under a hidden temporary name beside it, its writer's own
  (``.NAME.XXXXXXXX.tmp``, ``tempfile.mkstemp``'s: two writers never share one); when the block ends
  it is fsynced and renamed onto ``path`` (atomic); when it raises, the temporary file is removed.
  ``is_temporary_file`` is that name's one home; ``remove_stale_temporaries`` removes those that killed
  writers left, for a caller that holds the lock of every writer there (``exclusive_lock``), as a live
  writer's looks the same. ``write_text_atomic`` is the common case. ``check_output_file``: an
  output that is an input, or exists as a folder, device, pipe or symbolic link, is refused, not replaced by a file.
- ``check_output_folder`` / ``build_aside(out_dir)``: a folder is built in a hidden staging
  folder beside it (``.OUT.building-XXXXXXXX``) and swapped into place only when complete. The
  staging folder holds an exclusive ``flock`` for as long as its process lives, so a staging
  folder left by a killed run is recognised (its lock is free) and removed by the next build
  of the same output, never one that a live process is still building; an old output that a run
  killed mid-swap left moved aside is put back (``restore_moved_aside``), not removed. ``overwrite`` replaces
  only an earlier output of the same kind (``output_kind``: a model folder for ``elmo convert``
  and ``pretrain``, an export for ``elmo export``) that holds no file of the user's
  (``others_files``: an embeddings file, notes, ``.git``); an output folder that is, holds or lies in an
  input, is the current folder or holds it, lies in this package's folder (its shipped models), or
  is a symbolic link is refused even then. An old
  folder that cannot be removed after the swap is named in a warning (``logging``).
- ``check_parent_folders(path)``: a file where a folder on the way to an output should be is
  one clear error, not ``[Errno 17] File exists``.
- ``exclusive_lock(path)``: one process at a time per output (``OUTPUT.lock``); a second one
  fails at once with ``OutputBusyError``; ``check_lock_file`` refuses, before a long run, a lock
  path that holds something of the user's (a folder, a file with content). ``folder_for_the_run(folder)`` creates the folders on
  the way to a lock and removes those it created that the run left empty. ``sole_writer(path)``: the lock of
  an output file, which removes the temporary files that its killed writers left. ``scratch_folder(prefix)``: a
  run's own folder of scratch files (a script's models, its parts of files), removed however the run ends; one
  that a killed run left is removed by the next run of the same prefix, as its ``flock`` is free.
- ``ensure_free_space``: refuse a write that would fill the disk (HDF5 does not survive a full
  disk: it reports the failed writes while freeing objects and then crashes);
  ``check_writable``: refuse a folder this process cannot write in (or a read-only file system), before
  a long run would, in one line naming the output and the reason (``_not_writable``).
- ``strict_json``: the one home for writing JSON that holds measured figures (perplexities,
  differences, learned weights): an infinite or NaN float is written ``null``, as JSON has no such
  number (Python's ``Infinity`` and ``NaN`` fail ``jq``, JavaScript and strict parsers).
- ``input_identity``: size, mtime and SHA-256 of an input file, which a resumable run records
  to refuse resuming on another file of the same name (``elmo embed``, ``elmo pretrain``).

Files get the usual mode (0666 less the umask, 0644 by default), folders 0777 less the umask.
This module must not be imported by the modules that travel as remote code (``modeling_*.py``,
``configuration_elmo.py``, ``tokenization_elmo.py`` and their siblings; ``tests/test_architecture.py``
checks their imports).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import itertools
import json
import logging
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from transformers.utils import CONFIG_NAME

from .configuration_elmo import ElmoConfig, described, read_json_file, some_of
from .tokenization_elmo import TOKENIZER_CONFIG

PathLike = str | os.PathLike

#: The folder of this package: its code and its shipped models (``hf_elmo.pretrained``), which no
#: command writes in (``check_output_folder``).
PACKAGE_FOLDER = Path(__file__).resolve().parent
#: Bytes a write must leave free on its disk (HDF5 metadata, the temporary file's rename).
FREE_SPACE_RESERVE = 4 << 20
_STAGING = ".building-"
#: The file that every folder written by ``elmo export`` (``hf_elmo.export``) holds.
EXPORT_MANIFEST = "elmo_export.json"
#: What ``elmo pretrain`` records beside its model: its settings, where it stopped, its validation metrics.
TRAINING_FILE = "training.json"
#: What ``elmo pretrain`` writes first in its checkpoint folder (``hf_elmo.training.checkpoints``): the
#: run's settings, which mark the folder as a run's.
SETTINGS_FILE = "settings.json"
#: The checkpoint of an ``elmo pretrain`` run (weights, optimizer, data position), in its checkpoint folder.
CHECKPOINT_FILE = "checkpoint.pt"
#: The kinds of output folder: a model (``save_pretrained``: ``elmo convert``, ``elmo pretrain``)
#: or an export (``elmo export``). ``--overwrite`` replaces a folder of the same kind only.
OutputKind = Literal["model", "export"]
_KIND_NAMES: dict[str, str] = {
    "model": "an ELMo model (config.json)",
    "export": f"an ELMo export ({EXPORT_MANIFEST})",
}

_logger = logging.getLogger(__name__)


class OutputBusyError(BlockingIOError):
    """Another process is writing the same output."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_output_file(path: PathLike, inputs: Iterable[PathLike] = ()) -> Path:
    """Raise ``FileExistsError`` when ``path`` is one of ``inputs`` (the file it names, links followed, is
    the one read), or exists and is not a regular file (a symbolic link, folder, device or pipe:
    ``atomic_file``'s rename would put a file in its place, e.g. of ``/dev/null``), naming which; returns
    it as a ``Path``."""
    path = Path(path)
    for source in inputs:
        if path.resolve() == Path(source).resolve():
            named = "" if str(path) == str(source) else f" {source}"
            raise FileExistsError(f"the output {path} is the input{named}; write to another path")
    if path.is_symlink():
        raise FileExistsError(
            f"the output {path} is a symbolic link (to {os.readlink(path)}); name the file it points to, or a new one"
        )
    if path.is_dir():
        raise FileExistsError(f"the output {path} is a folder; give the path of the file to write")
    if path.exists() and not path.is_file():
        raise FileExistsError(
            f"the output {path} exists and is not a regular file (a device or pipe); choose another output path"
        )
    return path


#: The names of ``atomic_file``'s temporary files: ``.NAME.XXXXXXXX.tmp`` beside ``NAME``, the X's
#: ``tempfile.mkstemp``'s (lower-case letters, digits and ``_``).
_TEMPORARY_NAME = re.compile(r"\.(.+)\.[a-z0-9_]{8}\.tmp")


def is_temporary_file(path: PathLike, of: str | None = None) -> bool:
    """Whether ``path`` is named as ``atomic_file`` names the temporary files it writes (``.NAME.XXXXXXXX.tmp``),
    of the file named ``of`` (beside it) when given."""
    match = _TEMPORARY_NAME.fullmatch(Path(path).name)
    return match is not None and (of is None or match.group(1) == of)


def remove_stale_temporaries(folder: PathLike, of: str | None = None) -> None:
    """Remove from ``folder`` the temporary files of ``atomic_file`` (of the file named ``of`` only, when
    given) that writers killed mid-write left. Only for a caller that holds the lock of every writer
    of those files (``exclusive_lock``): a live writer's temporary file looks the same."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return
    for candidate in folder.iterdir():
        if is_temporary_file(candidate, of) and (candidate.is_symlink() or candidate.is_file()):
            candidate.unlink(missing_ok=True)


@contextmanager
def atomic_file(path: PathLike) -> Iterator[Path]:
    """Yield a new temporary file beside ``path`` to write, hidden and this writer's own
    (``.NAME.XXXXXXXX.tmp``, ``is_temporary_file``); on success fsync it and rename it onto ``path``.

    On an exception (or a full disk) the temporary file is removed and ``path`` is untouched.
    ``path`` must pass ``check_output_file``. One that a killed writer left stays until a holder
    of the output's lock removes it (``remove_stale_temporaries``).
    """
    path = check_output_file(path)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def write_text_atomic(path: PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through ``atomic_file``."""
    path = Path(path)
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def strict_json(value: Any, **options: Any) -> str:
    """``value`` as strict JSON text (``json.dumps(value, **options)``, e.g. ``indent=2``): every float in
    it that is infinite or NaN, however deep in its dicts, lists and tuples, is written ``null``, and
    ``allow_nan=False`` makes any other (a value ``default`` returns) a ``ValueError``, never ``Infinity``
    or ``NaN``. A reader that needs a number where it finds ``null`` says what the number was (e.g.
    ``training.evaluation.perplexity_from_json``)."""
    return json.dumps(_finite_or_none(value), allow_nan=False, **options)


def _finite_or_none(value: Any) -> Any:
    """``value`` with every non-finite float (in dicts, lists and tuples too) replaced by ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(item) for item in value]
    return value


def ensure_free_space(path: PathLike, nbytes: int, what: str, then: str = "run the command again") -> None:
    """Raise ``OSError(ENOSPC)`` naming ``what`` when writing ``nbytes`` under ``path`` (a
    folder, or a file's folder) would leave less than ``FREE_SPACE_RESERVE`` bytes free;
    ``then`` says what to do after freeing space."""
    folder = Path(path)
    while not folder.is_dir():
        folder = folder.parent
    free = shutil.disk_usage(folder).free
    if free - nbytes < FREE_SPACE_RESERVE:
        raise OSError(
            errno.ENOSPC,
            f"no space left on the disk of {folder} for {what} (needs {nbytes:,} bytes "
            f"+ {FREE_SPACE_RESERVE:,} spare, {free:,} free); free some space and {then}",
        )


#: What creating a file in a folder this process cannot write in fails with: a folder's mode
#: (``EACCES``), its flags (``EPERM``: immutable, even for root) or a file system mounted read-only (``EROFS``).
_CANNOT_WRITE = (errno.EACCES, errno.EPERM, errno.EROFS)


def _not_writable(folder: PathLike, what: PathLike, err: OSError) -> OSError:
    """The one-line error (of ``err``'s type and errno) for ``what``, the output the user gave, that
    cannot be written because creating a file in ``folder`` failed with ``err``: its reason, a
    read-only file system or a denied permission, as the system gave it. The one home of that message
    (``check_writable``, ``exclusive_lock``, ``build_aside``). Its text is that line alone, without the
    ``[Errno N]`` that ``OSError(errno, text)`` puts before it; ``errno`` is still ``err``'s."""
    error = type(err)(f"cannot write {what}: {folder} is not writable ({err.strerror})")
    error.errno = err.errno
    return error


def check_writable(folder: PathLike, what: PathLike) -> None:
    """Raise ``_not_writable`` when this process cannot create files in ``folder``, or (when it does
    not exist yet) in the nearest existing folder on its way to it: ``what`` (the file or folder to be
    written there) could not be written. It tries: an empty file is created there and removed at
    once, so a read-only file system, a folder's mode and its flags are told apart, for root too; any
    other reason (an inode quota, a pseudo file system) is told as the system gives it, naming ``what``
    (not that probe file)."""
    folder = Path(folder)
    existing = next(p for p in (folder, *folder.parents) if p.is_dir())
    try:
        fd, probe = tempfile.mkstemp(prefix=".elmo-writable-", dir=existing)
    except OSError as err:
        raise _not_writable(existing, what, err) from None
    os.close(fd)
    os.unlink(probe)


def input_identity(path: PathLike) -> dict[str, Any]:
    """Size, mtime and SHA-256 of the file ``path`` (``input_bytes``, ``input_mtime_ns``,
    ``input_sha256``): what a resumable run records of its input, to refuse another file later."""
    stat = Path(path).stat()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"input_bytes": stat.st_size, "input_mtime_ns": stat.st_mtime_ns, "input_sha256": digest.hexdigest()}


# -- one writer per output --------------------------------------------------------------------
def lock_path(path: PathLike) -> Path:
    """The lock file of the output ``path`` (``exclusive_lock``): ``PATH.lock``, beside it."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


def _no_lock(path: Path) -> FileExistsError:
    """The one-line error for ``path``, where ``exclusive_lock`` would lock, holding something of the
    user's (a file with content); the one home of that message (``check_lock_file``, ``exclusive_lock``)."""
    return FileExistsError(f"{path} exists and is no lock of elmo (it is not empty); move it, or write elsewhere")


def check_lock_file(path: PathLike) -> Path:
    """Raise ``FileExistsError`` when ``exclusive_lock`` could not take the lock file ``path``: a folder
    is there, or a file with content (a lock is empty), naming it and what to do; a writer checks it
    before a long run (loading a model) would; returns it as a ``Path``."""
    path = Path(path)
    if path.is_dir():
        raise FileExistsError(f"{path} is a folder, where elmo locks its output; move it, or write elsewhere")
    if path.is_file() and path.stat().st_size > 0:
        raise _no_lock(path)
    return path


#: The descriptors of the locks this process holds (``exclusive_lock``).
_HELD_LOCKS: set[int] = set()


def _drop_held_locks_in_child() -> None:
    """In a forked child (e.g. a ``DataLoader`` worker), close the inherited descriptors of its
    parent's locks: the lock stays the parent's, and goes with the parent alone. Otherwise a child
    that outlives a killed parent (workers notice only seconds later) kept the output locked."""
    for fd in _HELD_LOCKS:
        os.close(fd)
    _HELD_LOCKS.clear()


os.register_at_fork(after_in_child=_drop_held_locks_in_child)


@contextmanager
def exclusive_lock(path: PathLike, busy: str, what: PathLike | None = None) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created, removed on exit) for the block.

    Raises ``OutputBusyError(busy)`` at once when another process holds it, and ``_not_writable``
    naming ``what`` (the output the lock guards; default ``path``) when its folder cannot be
    written. A lock file left by a killed process is free (the kernel drops ``flock`` locks with
    their process). Lock files are empty: a file of that name with content, or a folder, is
    someone's, and is refused, not removed (``check_lock_file``).
    """
    path = check_lock_file(path)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as err:  # an unwritable folder (EACCES, EPERM) or a read-only file system (EROFS)
            if err.errno not in _CANNOT_WRITE:
                raise
            raise _not_writable(path.parent, path if what is None else what, err) from None
        if os.fstat(fd).st_size > 0:  # written since check_lock_file
            os.close(fd)
            raise _no_lock(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise OutputBusyError(busy) from None
        try:  # the holder before us may have removed the file after we opened it: lock the new one
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    _HELD_LOCKS.add(fd)
    try:
        yield
    finally:
        if fd in _HELD_LOCKS:  # else: a child forked in the block, which closed its copy at the fork
            path.unlink(missing_ok=True)
            _HELD_LOCKS.discard(fd)
            os.close(fd)


@contextmanager
def sole_writer(path: PathLike) -> Iterator[Path]:
    """Hold the lock of the output file ``path`` (``exclusive_lock`` on ``lock_path(path)``; another
    writer of it is refused at once, ``OutputBusyError`` naming it) for the block, which writes it through
    ``atomic_file``, and first remove the temporary files of ``path`` that killed writers left
    (``remove_stale_temporaries``). ``path``'s folder must exist; yields ``path`` as a ``Path``."""
    path = Path(path)
    lock = lock_path(path)
    busy = f"{path} is being written by another run (it holds {lock}); wait for it to end or write elsewhere"
    with exclusive_lock(lock, busy, what=path):
        remove_stale_temporaries(path.parent, path.name)
        yield path


@contextmanager
def folder_for_the_run(folder: PathLike) -> Iterator[Path]:
    """Create ``folder`` (and its missing parents) for the block; on leaving it, remove the ones it
    created that are still empty, deepest first: a run refused after making its way to its outputs
    (``elmo pretrain``'s locks) leaves no empty folders, and one that wrote there keeps them."""
    folder = Path(folder)
    created = list(itertools.takewhile(lambda path: not path.exists(), (folder, *folder.parents)))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        yield folder
    finally:
        for path in created:
            try:
                path.rmdir()
            except OSError:  # not empty: it holds what the run wrote, and so do its parents
                break


@contextmanager
def scratch_folder(prefix: str, parent: PathLike | None = None) -> Iterator[Path]:
    """Yield a new folder for a run's own files, ``PREFIXXXXXXXXX`` (``tempfile.mkdtemp``'s) in ``parent``
    (default: the temporary folder, ``tempfile.gettempdir()``), removed with what it holds when the block ends,
    however it ends. It holds an ``flock`` for as long as its process lives, so that the folders of ``prefix``
    that killed runs left there (``kill -9``) are recognised and removed first, never a live run's."""
    parent = Path(tempfile.gettempdir() if parent is None else parent)
    for stale in _abandoned(parent, re.compile(re.escape(prefix) + r"[a-z0-9_]{8}")):
        shutil.rmtree(stale, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    fd = os.open(folder, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _HELD_LOCKS.add(fd)  # a forked child (a Pool's worker) does not keep it when this process is killed
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if fd in _HELD_LOCKS:
            _HELD_LOCKS.discard(fd)
            os.close(fd)


# -- folders built aside ----------------------------------------------------------------------
def is_or_holds(folder: PathLike, path: PathLike) -> bool:
    """Whether ``folder`` is ``path`` or holds it, both resolved (links, ``..``)."""
    folder, path = Path(folder).resolve(), Path(path).resolve()
    return folder == path or folder in path.parents


def check_parent_folders(path: PathLike) -> None:
    """Raise ``NotADirectoryError`` naming the file when the nearest existing folder on the way
    to ``path`` is a file (``mkdir(parents=True)`` would say ``[Errno 17] File exists``)."""
    path = Path(path)
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(
                    f"{parent} is a file, not a folder, so {path} cannot be written under it; choose another output path"
                )
            return


def output_kind(folder: PathLike) -> OutputKind | None:
    """The kind of output of this package that ``folder`` holds, which ``--overwrite`` may replace
    with one of the same kind: ``"export"`` when it holds ``EXPORT_MANIFEST`` (``elmo export``),
    ``"model"`` when it holds an ELMo model's ``config.json`` (``save_pretrained``: ``elmo
    convert``, ``elmo pretrain``), else None."""
    folder = Path(folder)
    if (folder / EXPORT_MANIFEST).is_file():
        return "export"
    try:
        config = read_json_file(folder / CONFIG_NAME)
    except (OSError, ValueError):
        return None
    return "model" if isinstance(config, dict) and config.get("model_type") == ElmoConfig.model_type else None


#: The code that ``save_pretrained`` writes beside a model of this package (transformers copies each
#: Auto class's file and, recursively, the files it imports relatively): a copy of these modules.
#: ``scripts/sync_shipped_code.py`` refuses to run if a fresh save writes other files.
MODEL_CODE_FILES = (
    "configuration_elmo.py",
    "elmo_cache.py",
    "elmo_kernels.py",
    "modeling_elmo.py",
    "modeling_heads.py",
    "modeling_lm.py",
    "pipelines.py",
    "scalar_mix.py",
    "tokenization_elmo.py",
)
#: What the tokenizer's ``save_pretrained`` writes (with its code and its config's).
_TOKENIZER_FILES = (
    TOKENIZER_CONFIG,
    "special_tokens_map.json",
    "added_tokens.json",
    "tokenization_elmo.py",
    "configuration_elmo.py",
)
#: The files of each kind of folder this package writes (``save_pretrained`` with its code, the
#: tokenizer, ``elmo pretrain``'s vocabulary and card; ``elmo export``'s graph and manifest): what
#: ``--overwrite`` may replace in an earlier output of that kind.
_OUTPUT_FILES: dict[OutputKind, tuple[str, ...]] = {
    "model": (
        CONFIG_NAME,
        "generation_config.json",
        "model.safetensors",
        "model.safetensors.index.json",
        "model-*-of-*.safetensors",
        "pytorch_model.bin",
        "pytorch_model.bin.index.json",
        "pytorch_model-*-of-*.bin",
        "README.md",
        TRAINING_FILE,
        "vocab.txt",
        *_TOKENIZER_FILES,
        *MODEL_CODE_FILES,
    ),
    "export": (EXPORT_MANIFEST, "model.onnx", "model.pt2", *_TOKENIZER_FILES),
}


def others_files(folder: PathLike, kind: OutputKind) -> list[str]:
    """The names in ``folder`` that no output of this ``kind`` holds (``_OUTPUT_FILES``): the
    user's own files and folders, which replacing the folder would delete."""
    return sorted(
        entry.name
        for entry in Path(folder).iterdir()
        if entry.is_dir() or entry.is_symlink() or not any(entry.match(pattern) for pattern in _OUTPUT_FILES[kind])
    )


def check_output_folder(
    out_dir: PathLike,
    *,
    overwrite: bool,
    inputs: Iterable[PathLike] = (),
    kind: OutputKind = "model",
    into_package: bool = False,
    not_empty: str | None = None,
) -> Path:
    """Refuse an output folder that is no path (a ``TypeError``), an empty one, a symbolic link or a file, lies
    under a file, is the current folder or one of its parents, lies in this package's folder (``PACKAGE_FOLDER``;
    ``into_package``: ``scripts/ship_model.py`` writes a shipped model there), is, holds or lies in
    one of ``inputs``, or is not empty (unless ``overwrite``, and then only an earlier output of the
    same ``kind``, ``output_kind``, that holds no file of the user's, ``others_files``), or lies in a folder
    this process cannot write in (``check_writable``: its parent, where it is built and swapped in, or the
    nearest existing folder on the way to it); returns it as a ``Path`` (``~`` expanded). A non-empty folder that
    ``--overwrite`` would not replace is refused with the reason (``_overwrite_refusal``) with or without
    ``overwrite``, so that the first refusal never suggests an ``--overwrite`` that the next one refuses.
    ``not_empty``: the refusal of a non-empty folder without ``overwrite`` where the caller knows what
    ``--overwrite`` would do there (``elmo pretrain`` continues a run); else it says that ``--overwrite`` replaces it."""
    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"the output folder must be a path (a str or Path), not {described(out_dir)}")
    if not os.fspath(out_dir):  # (was: Path("") is ".", refused as the current folder, which the user never named)
        raise ValueError("the output folder is an empty path (''); name the folder to write")
    out_dir = Path(out_dir).expanduser()  # "~/out" quoted, as inputs are read (never a folder named "~")
    if out_dir.is_symlink():
        raise ValueError(
            f"the output folder {out_dir} is a symbolic link (to {os.readlink(out_dir)}); name the folder it "
            "points to, or a new one"
        )
    check_parent_folders(out_dir)
    if is_or_holds(out_dir, Path.cwd()):
        raise ValueError(f"the output folder {out_dir} is the current folder or holds it; pick a new or empty folder")
    if not into_package and is_or_holds(PACKAGE_FOLDER, out_dir):
        raise ValueError(
            f"the output folder {out_dir} lies in the folder of the installed hf_elmo package ({PACKAGE_FOLDER}), "
            "which holds its shipped models (hf-elmo:NAME) and which an upgrade or reinstall replaces; write elsewhere"
        )
    for source in inputs:
        source = Path(source).resolve()
        if out_dir.resolve() == source:
            named = "" if str(out_dir) == str(source) else f" {source}"
            raise ValueError(
                f"the output folder {out_dir} is the input{named}; write to another folder (it would be deleted)"
            )
        if is_or_holds(out_dir, source):
            raise ValueError(
                f"the output folder {out_dir} holds the input {source}; write to another folder (it would be deleted)"
            )
        if is_or_holds(source, out_dir):
            raise ValueError(f"the output folder {out_dir} lies inside the input {source}; write to another folder")
    if out_dir.exists() and not out_dir.is_dir():
        raise FileExistsError(f"{out_dir} is a file, not a folder; choose another output folder or remove the file")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        refusal = _overwrite_refusal(out_dir, kind)  # said with or without overwrite: --overwrite would not help
        if refusal is not None:
            raise FileExistsError(refusal)
        if not overwrite:
            raise FileExistsError(not_empty or f"{out_dir} exists and is not empty (pass --overwrite to replace it)")
    check_writable(out_dir.parent, out_dir)
    return out_dir


def _overwrite_refusal(out_dir: Path, kind: OutputKind) -> str | None:
    """Why ``--overwrite`` does not replace the non-empty folder ``out_dir`` with an output of ``kind``
    (it holds no earlier output of elmo, one of another kind, or files of the user's), or None."""
    found = output_kind(out_dir)
    if found is None:
        return (
            f"{out_dir} is not empty and holds no earlier output of elmo ({_KIND_NAMES[kind]}), so "
            "--overwrite does not replace it; pick a new or empty folder"
        )
    if found != kind:
        return (
            f"{out_dir} holds {_KIND_NAMES[found]}, not {_KIND_NAMES[kind].replace('an ', 'an earlier ', 1)}, "
            f"so --overwrite does not replace it; write the {kind} to another folder (delete that {found} "
            "first if you mean to replace it)"
        )
    others = others_files(out_dir, kind)
    if others:
        return (
            f"{out_dir} holds files that elmo did not write ({some_of(others, 5)}), which --overwrite would delete with the "
            "folder; move them out of it, or write to another folder"
        )
    return None


def _abandoned(folder: Path, pattern: re.Pattern[str]) -> Iterator[Path]:
    """The folders in ``folder`` named by ``pattern`` whose ``flock`` no live process holds: those that killed
    runs left (``build_aside``'s staging folders, ``scratch_folder``'s), never a live run's."""
    if not folder.is_dir():
        return
    for candidate in sorted(folder.iterdir()):
        if not pattern.fullmatch(candidate.name) or candidate.is_symlink() or not candidate.is_dir():
            continue
        fd = os.open(candidate, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live run's
        finally:
            os.close(fd)  # closing drops the lock, if taken
        yield candidate


def _stale_staging(out_dir: Path) -> Iterator[Path]:
    """The staging folders of ``out_dir`` (and old copies moved aside, ``.old``) that no live process holds."""
    yield from _abandoned(out_dir.parent, re.compile(re.escape(f".{out_dir.name}{_STAGING}") + r"[a-z0-9_]{8}(\.old)?"))


def restore_moved_aside(out_dir: PathLike) -> None:
    """Put back the old ``out_dir`` that a build killed between its two renames (``build_aside``) left
    moved aside (``.OUT.building-XXXXXXXX.old``), ``out_dir`` itself missing: the next build finds the
    output as it was, replaced only with ``overwrite``, never removed as a stale staging folder."""
    out_dir = Path(out_dir).expanduser()
    if out_dir.exists() or out_dir.is_symlink():
        return
    for candidate in _stale_staging(out_dir):
        if candidate.name.endswith(".old"):
            candidate.rename(out_dir)
            return


def remove_stale_staging(out_dir: PathLike) -> None:
    """Remove the staging folders of ``out_dir`` that no live process holds (killed builds), and
    the old copies of it that a build swapped out (``restore_moved_aside`` first puts back one
    that no ``out_dir`` replaced)."""
    for candidate in _stale_staging(Path(out_dir)):
        shutil.rmtree(candidate, ignore_errors=True)


@contextmanager
def build_aside(
    out_dir: PathLike,
    *,
    overwrite: bool,
    inputs: Iterable[PathLike] = (),
    expected_bytes: int = 0,
    kind: OutputKind = "model",
    into_package: bool = False,
) -> Iterator[Path]:
    """Yield an empty staging folder beside ``out_dir``, a ``kind`` of output; when the block ends
    without error it replaces ``out_dir`` (checked again by ``check_output_folder``, which takes
    ``into_package``); on an error
    it is removed and ``out_dir`` is untouched. ``expected_bytes``, about what the block writes,
    must fit on the disk (``ensure_free_space``).

    The old ``out_dir`` is renamed aside before the new one is renamed in, and removed last; when
    it cannot be removed (a read-only file in it), a one-line warning names what is left. An old
    ``out_dir`` that a build killed between the two renames left aside is put back first
    (``restore_moved_aside``), and then checked as any output is.
    """
    inputs = list(inputs)
    restore_moved_aside(out_dir)
    out_dir = check_output_folder(out_dir, overwrite=overwrite, inputs=inputs, kind=kind, into_package=into_package)
    parent = out_dir.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(out_dir)
        ensure_free_space(parent, expected_bytes, f"the folder {out_dir.name}")
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}{_STAGING}", dir=parent))
    except OSError as err:  # the folder became unwritable since check_output_folder's check
        if err.errno not in _CANNOT_WRITE:
            raise
        raise _not_writable(parent, out_dir, err) from None
    lock = os.open(staging, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield staging
        check_output_folder(out_dir, overwrite=overwrite, inputs=inputs, kind=kind, into_package=into_package)
        staging.chmod(0o777 & ~_umask())
        old = staging.with_name(staging.name + ".old")
        if out_dir.exists():
            out_dir.rename(old)
        try:
            staging.rename(out_dir)
        except BaseException:
            if old.exists():
                old.rename(out_dir)
            raise
        _fsync_dir(parent)
        if old.exists():
            _remove_old_copy(old, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        os.close(lock)


def _remove_old_copy(old: Path, out_dir: Path) -> None:
    """Remove ``old``, the copy of ``out_dir`` that a new one replaced; what cannot be removed is
    left and named in a one-line warning (the new ``out_dir`` is complete either way)."""
    try:
        shutil.rmtree(old)
    except OSError as err:
        reason = err.strerror or str(err)
        _logger.warning(
            "%s is written, but its old copy %s could not be removed (%s); delete it yourself", out_dir, old, reason
        )
