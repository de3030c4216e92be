"""Writing files so that nothing is lost and nothing is left half-written: the primitives, which know
nothing of what this package writes (``output_folders``: its output folders, what each kind holds,
which one may be replaced, and how one is built aside and swapped in).

- ``atomic_file(path)``: write a file under a hidden temporary name beside it, its writer's own
  (``.NAME.XXXXXXXX.tmp``, ``tempfile.mkstemp``'s: two writers never share one); when the block ends
  it is fsynced and renamed onto ``path`` (atomic); when it raises, the temporary file is removed.
  ``is_temporary_file`` is that name's one home; ``remove_stale_temporaries`` removes those that killed
  writers left, for a caller that holds the lock of every writer there (``exclusive_lock``), as a live
  writer's looks the same. ``write_text_atomic`` is the common case. ``check_output_file``: an
  output that is an input, or exists as a folder, device, pipe or symbolic link, is refused, not replaced by a file.
- ``check_parent_folders(path)``: a file where a folder on the way to an output should be is
  one clear error, not ``[Errno 17] File exists``. ``is_or_holds``: whether a folder is or holds a path.
- ``exclusive_lock(path)``: one process at a time per output (``OUTPUT.lock``; an ``flock``, or filelock's lock
  where there is none, Windows); a second one fails at once with ``OutputBusyError``; ``check_lock_file``
  refuses, before a long run, a lock path that holds something of the user's (a folder, a file with content).
  ``folder_for_the_run(folder)`` creates the folders on the way to an output or a lock and removes those it
  created that the run left empty. ``sole_writer(path)``: the lock of an output file, which removes the temporary
  files that its killed writers left. ``check_writable_output``
  (``check_locked_output`` with ``sole_writer``) refuses, before a long run, an output file that
  ``atomic_file`` could not write. ``scratch_folder(prefix)``: a run's own folder of scratch files (a script's
  models, its parts of files), removed however the run ends; one that a killed run left is removed by the next
  run of the same prefix, as its ``flock`` is free. ``swap_folder_in``: a new folder renamed in for an earlier one,
  which a swap killed between its two renames leaves moved out, for the next run to put back (``put_back``).
- ``ensure_free_space``: refuse a write that would fill the disk (HDF5 does not survive a full
  disk: it reports the failed writes while freeing objects and then crashes), in one line
  (``oserror_in_one_line``: an ``OSError`` with its errno, without the ``[Errno N]`` prefix), and
  ``check_file_size_limit`` an HDF5 file that would pass the process's file size limit (``ulimit -f``);
  ``check_writable``: refuse a folder this process cannot write in (or a read-only file system), before
  a long run would, in one line naming the output and the reason (``_not_writable``; ``unwritable_in_one_line``
  for a write that finds it so).
- ``strict_json``: the one home for writing JSON that holds measured figures (perplexities,
  differences, learned weights): an infinite or NaN float is written ``null``, as JSON has no such
  number (Python's ``Infinity`` and ``NaN`` fail ``jq``, JavaScript and strict parsers).
- ``input_identity``: size, mtime and SHA-256 of an input file, which a resumable run records
  to refuse resuming on another file of the same name (``elmo embed``, ``elmo pretrain``).

Files get the usual mode (0666 less the umask, 0644 by default), folders 0777 less the umask
(``current_umask``).
This module must not be imported by the modules that travel as remote code (``modeling_*.py``,
``configuration_elmo.py``, ``tokenization_elmo.py``, ``messages.py`` and their siblings; ``tests/test_architecture.py``
checks their imports).
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

try:
    import fcntl
    import resource
except ImportError:  # Windows: no flock (``exclusive_lock`` takes filelock's lock; ``folder_locked`` none), no ulimit
    fcntl = None  # type: ignore[assignment]
    resource = None  # type: ignore[assignment]

PathLike = str | os.PathLike

#: Bytes a write must leave free on its disk (HDF5 metadata, the temporary file's rename).
FREE_SPACE_RESERVE = 4 << 20


class OutputBusyError(BlockingIOError):
    """Another process is writing the same output."""


def current_umask() -> int:
    """This process's umask (what new files and folders are created without)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fsync_folder(folder: Path) -> None:
    """Flush ``folder``'s entries (a rename into it) to the disk."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def swap_folder_in(new: Path, out: Path, old: Path) -> None:
    """Rename the folder ``new`` to ``out``, an existing ``out`` renamed to ``old`` first (beside it, for the caller
    to remove once the new one is in place); when the second rename fails, ``out`` is put back, so that a failed
    swap leaves the old folder where it was. One killed between the two renames leaves it at ``old``, ``out``
    missing: the next run puts it back first (``put_back``: ``output_folders.build_aside``, and for a run whose
    ``old`` is ``SWAPPED_OUT`` in its scratch folder, ``put_back_swapped_out``)."""
    if out.exists() or out.is_symlink():
        os.replace(out, old)
    try:
        os.replace(new, out)
    except BaseException:
        if old.exists() or old.is_symlink():
            os.replace(old, out)
        raise


#: The name, in a run's scratch folder (``scratch_folder``), of the earlier folder that ``swap_folder_in`` moves out
#: there for a new one, removed with the scratch folder (``put_back_swapped_out``: a killed run's put back).
SWAPPED_OUT = "replaced"


def put_back(old: Path, out: Path) -> None:
    """Rename ``old``, the folder that a ``swap_folder_in`` killed between its two renames moved out of ``out``'s place,
    back to ``out`` where ``out`` is still missing: the next run finds the earlier folder as it was (and replaces it
    only as it replaces any), never removed with what the killed run left."""
    if old.is_dir() and not old.is_symlink() and not (out.exists() or out.is_symlink()):
        os.replace(old, out)


def put_back_swapped_out(out: PathLike, prefix: str) -> None:
    """Put back ``out`` where a run killed between ``swap_folder_in``'s two renames left it moved out into its scratch
    folder (``SWAPPED_OUT`` in ``scratch_folder(prefix, out's folder)``, which no live process holds), ``out``
    missing (``put_back``). For the run's next run, before it checks ``out``: its ``scratch_folder`` removes that
    folder (was: with the earlier ``out`` in it)."""
    out = Path(out)
    for stale in abandoned_folders(out.parent, _scratch_names(prefix)):
        put_back(stale / SWAPPED_OUT, out)


def check_output_file(path: PathLike, inputs: Iterable[PathLike] = (), inputs_are: str = "the input") -> Path:
    """Raise ``FileExistsError`` when ``path`` is one of ``inputs`` (the file it names, links followed, is
    the one read; ``inputs_are`` names them in the message: ``"the options file"`` for another output of the
    same call, say), or exists and is not a regular file (a symbolic link, folder, device or pipe:
    ``atomic_file``'s rename would put a file in its place, e.g. of ``/dev/null``), naming which; returns
    it as a ``Path``."""
    path = Path(path)
    for source in inputs:
        if path.resolve() == Path(source).resolve():
            named = "" if str(path) == str(source) else f" {source}"
            raise FileExistsError(f"the output {path} is {inputs_are}{named}; write to another path")
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


def check_names_a_file(path: PathLike, what: str, example: str) -> None:
    """Raise ``ValueError`` when ``path``, as given (before ``Path`` drops it), ends with a slash, naming a folder
    where ``what`` (``"HDF5 file"``) is written: ``Path("out/")`` is ``out``, a file written where the user meant a
    folder; the message says to name the file, e.g. ``example`` in that folder."""
    text = os.fspath(path)
    if isinstance(text, str) and text.endswith(("/", os.sep)):
        raise ValueError(
            f"the output {text} ends with {text[-1]!r}, naming a folder; name the {what} to write "
            f"(e.g. {Path(text, example)})"
        )


def check_input_names_a_file(path: PathLike, what: str) -> None:
    """Raise ``NotADirectoryError`` when the input ``what`` (``"the input"``), as given (before ``Path`` drops it),
    ends with a slash, naming a folder, and names something else: ``Path("two.txt/")`` is ``two.txt``, read quietly (was: so
    read, or ``two.txt/: Not a directory`` where the file was opened as given); the message says to drop it."""
    text = os.fspath(path)
    if isinstance(text, str) and text.endswith(("/", os.sep)) and Path(text).exists() and not Path(text).is_dir():
        found = "a file" if Path(text).is_file() else "not a folder"
        raise NotADirectoryError(
            f"{what} {text} ends with {text[-1]!r}, naming a folder, but {Path(text)} is {found}: drop the {text[-1]!r}"
        )


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
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_folder(path.parent)


def write_text_atomic(path: PathLike, text: str, *, make_folders: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through ``atomic_file``; with ``make_folders``, in its folder made
    first where it is missing (``folder_for_the_run``: a failed write leaves none of the folders it made), as a
    script writes its output option (the benchmarks' ``--json``)."""
    path = Path(path)
    with folder_for_the_run(path.parent) if make_folders else nullcontext(), atomic_file(path) as tmp:
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
        raise oserror_in_one_line(
            errno.ENOSPC,
            f"no space left on the disk of {folder} for {what} (needs {nbytes:,} bytes "
            f"+ {FREE_SPACE_RESERVE:,} spare, {free:,} free); free some space and {then}",
        )


#: What an HDF5 file takes besides its datasets' values: its header and tables, and each dataset's (about 410 bytes
#: in a part file of ``elmo embed``): what the callers of ``check_file_size_limit`` add to the values' bytes.
HDF5_FILE_BYTES, HDF5_DATASET_BYTES = 16 << 10, 1 << 10


def check_file_size_limit(nbytes: int, what: str, then: str = "run the command again") -> None:
    """Raise ``OSError(EFBIG)`` naming ``what`` when a file of about ``nbytes`` bytes would pass this process's file
    size limit (``RLIMIT_FSIZE``: ``ulimit -f``), past which the system refuses its writes: for the writers of HDF5
    files, which do not survive a refused write (as ``ensure_free_space`` says of a full disk), before they write;
    in one line (``oserror_in_one_line``) that says to raise the limit and then ``then``."""
    if resource is None:  # Windows: no such limit
        return
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY and nbytes > limit:
        raise oserror_in_one_line(
            errno.EFBIG,
            f"{what} needs about {nbytes:,} bytes, over this process's file size limit ({limit:,} bytes: ulimit -f); "
            f"raise the limit and {then}",
        )


def oserror_in_one_line(number: int | None, text: str, kind: type[OSError] = OSError) -> OSError:
    """An error of type ``kind`` whose text is ``text`` alone, without the ``[Errno N]`` that
    ``OSError(number, text)`` puts before it; its ``errno`` is still ``number``. The one home of that
    way of building this package's ``OSError`` messages (``_not_writable``, ``ensure_free_space``)."""
    error = kind(text)
    error.errno = number
    return error


#: What creating a file in a folder this process cannot write in fails with: a folder's mode
#: (``EACCES``), its flags (``EPERM``: immutable, even for root) or a file system mounted read-only (``EROFS``).
_CANNOT_WRITE = (errno.EACCES, errno.EPERM, errno.EROFS)


def _not_writable(folder: PathLike, what: PathLike, err: OSError) -> OSError:
    """The one-line error (of ``err``'s type and errno) for ``what``, the output the user gave, that
    cannot be written because creating a file in ``folder`` failed with ``err``: its reason, a
    read-only file system or a denied permission (``_CANNOT_WRITE``: the folder is not writable), or any
    other (a folder of a pseudo file system such as ``/proc``, ``ENOENT``; an inode quota: the folder
    refuses new files), as the system gave it. The one home of that message
    (``check_writable``, ``unwritable_in_one_line``). Its text is that line alone
    (``oserror_in_one_line``); ``errno`` is still ``err``'s."""
    if err.errno in _CANNOT_WRITE:
        text = f"cannot write {what}: {folder} is not writable ({err.strerror})"
    else:  # was: 'is not writable (No such file or directory)' for a folder that exists
        text = f"cannot create {what}: {folder} refuses new files ({err.strerror})"
    return oserror_in_one_line(err.errno, text, type(err))


@contextmanager
def unwritable_in_one_line(folder: PathLike, what: PathLike) -> Iterator[None]:
    """Raise ``_not_writable`` naming ``what`` for an error of the block that says ``folder`` cannot be
    written in (``_CANNOT_WRITE``: a folder's mode or flags, a read-only file system); other errors pass.
    For a write that finds the folder so after ``check_writable``'s check (``exclusive_lock``,
    ``output_folders.build_aside``)."""
    try:
        yield
    except OSError as err:
        if err.errno not in _CANNOT_WRITE:
            raise
        raise _not_writable(folder, what, err) from None


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
    """Raise ``FileExistsError`` when ``exclusive_lock`` could not take the lock file ``path``: a folder or a symbolic
    link is there, or a file with content (a lock is empty), naming it and what to do; a writer checks it
    before a long run (loading a model) would; returns it as a ``Path``."""
    path = Path(path)
    if path.is_dir():
        raise FileExistsError(f"{path} is a folder, where elmo locks its output; move it, or write elsewhere")
    if path.is_symlink():  # the lock would be made, or taken, where it points, and the link removed at the end
        raise FileExistsError(
            f"{path} is a symbolic link (to {os.readlink(path)}), where elmo locks its output; move it, or write elsewhere"
        )
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


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_drop_held_locks_in_child)


@contextmanager
def exclusive_lock(path: PathLike, busy: str, what: PathLike | None = None) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (created, removed on exit) for the block.

    Raises ``OutputBusyError(busy)`` at once when another process holds it, and ``_not_writable``
    naming ``what`` (the output the lock guards; default ``path``) when its folder cannot be
    written. A lock file left by a killed process is free (the kernel drops ``flock`` locks with
    their process). Lock files are empty: a file of that name with content, or a folder, is
    someone's, and is refused, not removed (``check_lock_file``). Where there is no ``flock`` (Windows),
    filelock's lock (``_file_locked``).
    """
    path = check_lock_file(path)
    if fcntl is None:
        with _file_locked(path, busy, path if what is None else what):
            yield
        return
    while True:
        with unwritable_in_one_line(path.parent, path if what is None else what):
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
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
def _file_locked(path: Path, busy: str, what: PathLike) -> Iterator[None]:
    """``exclusive_lock`` where there is no ``flock`` (Windows): ``filelock.FileLock`` on ``path``, which its
    release removes there (the system drops it with a killed process)."""
    with unwritable_in_one_line(path.parent, what):  # said here: filelock would wait for it forever
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666))
    if path.stat().st_size > 0:  # written since check_lock_file
        raise _no_lock(path)
    lock = FileLock(path)
    try:
        with unwritable_in_one_line(path.parent, what):
            lock.acquire(timeout=0)
    except Timeout:
        raise OutputBusyError(busy) from None
    try:
        yield
    finally:
        lock.release()


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


def check_writable_output(path: PathLike, inputs: Iterable[PathLike] = (), inputs_are: str = "the input") -> Path:
    """Refuse, in one line, before a long run would, an output file that ``atomic_file`` could not write (in
    its folder, made first where it is missing): one of ``inputs`` (named ``inputs_are``), or no regular file
    (``check_output_file``), a file on the way to it (``check_parent_folders``) or a folder this process cannot
    write in (``check_writable``); returns it as a ``Path``."""
    path = check_output_file(path, inputs, inputs_are)
    check_parent_folders(path)
    check_writable(path.parent, path)
    return path


def check_locked_output(path: PathLike, inputs: Iterable[PathLike] = (), inputs_are: str = "the input") -> Path:
    """``check_writable_output`` of an output file that ``sole_writer`` locks: a lock file's place that holds
    something of the user's (``check_lock_file``) is refused too."""
    path = check_writable_output(path, inputs, inputs_are)
    check_lock_file(lock_path(path))
    return path


@contextmanager
def folder_for_the_run(folder: PathLike) -> Iterator[Path]:
    """Create ``folder`` (and its missing parents) for the block; on leaving it, remove the ones it
    created that are still empty, deepest first: a run refused or failed after making its way to its outputs
    (``elmo pretrain``'s locks, ``save_allennlp``'s files, a script's output) leaves no empty folders, and one
    that wrote there keeps them."""
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


def abandoned_folders(folder: Path, pattern: re.Pattern[str]) -> Iterator[Path]:
    """The folders in ``folder`` named by ``pattern`` whose ``flock`` no live process holds: those that killed
    runs left (``output_folders.build_aside``'s staging folders, ``scratch_folder``'s), never a live run's; one that
    this process cannot open (another user's, in the shared temporary folder) is not this run's to remove."""
    if not folder.is_dir():
        return
    if fcntl is None:  # no flock (Windows): no telling a killed run's folder from a live one's
        return
    for candidate in sorted(folder.iterdir()):
        if not pattern.fullmatch(candidate.name) or candidate.is_symlink() or not candidate.is_dir():
            continue
        try:
            fd = os.open(candidate, os.O_RDONLY)
        except PermissionError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live run's
        finally:
            os.close(fd)  # closing drops the lock, if taken
        yield candidate


@contextmanager
def scratch_folder(prefix: str, parent: PathLike | None = None) -> Iterator[Path]:
    """Yield a new folder for a run's own files, ``PREFIXXXXXXXXX`` (``tempfile.mkdtemp``'s) in ``parent``
    (default: the temporary folder, ``tempfile.gettempdir()``), removed with what it holds when the block ends,
    however it ends. It holds an ``flock`` for as long as its process lives, so that the folders of ``prefix``
    that killed runs left there (``kill -9``) are recognised and removed first, never a live run's."""
    parent = Path(tempfile.gettempdir() if parent is None else parent)
    for stale in abandoned_folders(parent, _scratch_names(prefix)):
        shutil.rmtree(stale, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    with folder_locked(folder):
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _scratch_names(prefix: str) -> re.Pattern[str]:
    """The names of ``scratch_folder``'s folders of ``prefix`` (``tempfile.mkdtemp``'s X's after it)."""
    return re.compile(re.escape(prefix) + r"[a-z0-9_]{8}")


@contextmanager
def folder_locked(folder: Path) -> Iterator[None]:
    """Hold an ``flock`` on ``folder`` for the block, by which ``abandoned_folders`` tells it a live run's
    (``scratch_folder``'s, ``output_folders.build_aside``'s staging folder); a forked child (a Pool's worker) does
    not keep it when this process is killed (``_HELD_LOCKS``). Where there is no ``flock`` (Windows), none."""
    if fcntl is None:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    _HELD_LOCKS.add(fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd in _HELD_LOCKS:
            _HELD_LOCKS.discard(fd)
            os.close(fd)


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
