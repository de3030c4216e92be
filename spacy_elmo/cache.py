"""A bounded cache of a frozen biLM's layers, keyed by a doc's text, tokens and sentences."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import stat
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import numpy as np
from spacy.tokens import Doc

from hf_elmo.elmo_cache import fork_safe_lock
from hf_elmo.fileio import check_parent_folders, check_writable
from hf_elmo.messages import described, error_text, is_number

from .batching import sentences
from .config_errors import check_setting


def doc_key(doc: Doc) -> str:
    """A digest of what the biLM reads of ``doc``: its text, token texts and sentences (``sentences``:
    those of ``doc.sents``, as ``[start, end)`` token offsets)."""
    digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass"))
    for token in doc:  # each token's bytes after their count: no two tokenisations give one stream
        text = token.text.encode("utf-8", "surrogatepass")
        digest.update(len(text).to_bytes(8, "little") + text)
    spans = sentences(doc)
    if spans is not None:
        digest.update(np.array([(len(spans), 0)] + [(s.start, s.end) for s in spans], dtype="<i8").tobytes())
    return digest.hexdigest()


#: What an entry takes besides its layers, counted against the bound with them: in memory, its key
#: (a 64-character str: 113 bytes), its array's header and its places in the index, and, stored
#: inside a memory zone, in the zone's index too; on disk, its file's ``.npy`` header (128 bytes)
#: and its key in the index (in memory). Measured with tracemalloc in a full cache of 0.1 to 4 MiB
#: evicting one-token to three-token entries of the tiny biLM (the index's tables at their fullest):
#: 440 to 505 bytes outside a memory zone, 585 to 664 inside one; this leaves 40 to spare.
ENTRY_OVERHEAD = 704


def entry_bytes(layers: np.ndarray) -> int:
    """What the cache counts for an entry of ``layers``: their bytes as float32, as stored, and ``ENTRY_OVERHEAD``."""
    return int(layers.size) * np.dtype("float32").itemsize + ENTRY_OVERHEAD


#: The memory zones open in this thread or asyncio task (its context): the entries stored inside
#: each, by the id of its ``ActivationCache``.
_ZONES: ContextVar[dict[int, set[str]]] = ContextVar("spacy_elmo_cache_zones")

#: Held while an ``ActivationCache`` reads or changes its entries (their files too), so that the
#: threads of a service may share one pipeline; the biLM runs outside it. A fork waits for it.
_LOCK = fork_safe_lock()


class ActivationCache:
    """Least-recently-used store of (L+1, n_tokens, 2P) float32 arrays, at most ``max_mb`` MiB, each
    entry counted as its layers and what holds them (``entry_bytes``).

    In memory by default; with ``directory`` the arrays are ``.npy`` files and only the index is
    in memory. The files go in a folder of this cache and process alone,
    ``directory/elmo-cache-PID-XXXX``, made when the first entry is stored (so two pipelines, or the worker
    processes of ``nlp.pipe(n_process=N)``, never read each other's layers or evict each
    other's files) and removed when the cache is collected or the process exits. A copy of the
    cache in another process (a worker) makes its folder inside the original's, which goes with
    it: spaCy terminates its workers, which therefore remove nothing themselves. A copy in the
    same process (``copy.deepcopy``, ``pickle.loads``) starts empty in a folder of its own beside
    the original's. A folder left by a process that no longer runs (killed) is removed by the next
    cache made beside it.
    Valid only while the biLM's weights do not change: the owner calls
    ``clear()`` when it loads new ones. Arrays go in and come out as copies, so a caller that
    changes one in place cannot change the cache. Entries stored inside ``memory_zone()`` are
    removed when it ends. Threads may share the cache: each read and store is whole (``_LOCK``),
    and each thread's (and asyncio task's) memory zones are its own (``memory_zone``).
    """

    def __init__(self, max_mb: float, directory: str | Path | None = None) -> None:
        check_setting(
            is_number(max_mb) and max_mb >= 0,  # not inf: spaCy cannot save it in a config (E961)
            "the elmo component",
            "cache_mb",
            f"must be a finite number of MiB >= 0 (0 disables the cache), got {described(max_mb)}",
        )
        blank = isinstance(directory, str) and not directory.strip()  # Path("") is the current folder
        check_setting(
            not blank, "the elmo component", "cache_dir", f"{directory!r} names no folder: give one, or null for memory"
        )
        # "~/..." is the user's home, as in the loader's name_or_path
        self.directory = None if directory is None else Path(directory).expanduser()
        if self.directory is not None:
            try:  # the folder is made at the first write: refuse now one that cannot be made or written
                check_parent_folders(self.directory)
                check_writable(self.directory, self.directory)
                problem = None if not self.directory.exists() or self.directory.is_dir() else "is a file, not a folder"
            except OSError as err:
                problem = f"cannot be made or written ({error_text(err)})"
            check_setting(problem is None, "the elmo component", "cache_dir", f"{self.directory} {problem}")
        self.max_bytes = int(max_mb * 2**20)
        self._sizes: OrderedDict[str, int] = OrderedDict()  # every entry's size, least recently used first
        self._arrays: dict[str, np.ndarray] = {}  # the entries themselves, when held in memory
        self._bytes = 0
        # this cache's own folder in ``directory``, named now (a worker's goes inside it), made when written to
        self._folder = None if self.directory is None else _own_folder(self.directory, self)
        self._made = False
        self._failed_write = False  # whether a file of this cache failed to be written (and was warned of)
        self._pid = os.getpid()  # the process whose entries the index holds
        self._init_zones()

    def __getstate__(self) -> dict[str, object]:
        """A pickled copy (a worker of ``nlp.pipe(n_process=N)`` started by ``spawn`` or
        ``forkserver``, the default outside Linux and from Python 3.14 on it; ``copy.deepcopy``)
        starts without the in-memory entries: the copy fills its own, and pickling these (up to
        ``max_mb``, 2048 MiB in the shipped configs) would send them to every worker."""
        state = dict(self.__dict__)
        del state["_zone_of"]  # a copy starts outside any memory zone
        if self.directory is None:
            state.update(_sizes=OrderedDict(), _arrays={}, _bytes=0)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        """A copy in the process of the original (``copy.deepcopy(nlp)``, ``pickle.loads``) starts
        without the original's files too, in a folder of its own beside the original's, which it
        removes when it is collected (was: the two shared one folder and index, so that each served
        the other's layers, those of other weights once one loaded new ones, and the original took
        the folder with it). A copy in another process is handled at its first use
        (``_forget_another_process``)."""
        self.__dict__.update(state)
        self._init_zones()
        if self.directory is not None and self._pid == os.getpid():
            self._sizes, self._bytes = OrderedDict(), 0
            self._folder, self._made = _own_folder(self.directory, self), False

    def _init_zones(self) -> None:
        #: the memory zone (its set of entries) of each entry stored inside one
        self._zone_of: dict[str, set[str]] = {}

    def _open_zone(self) -> set[str] | None:
        """The entries stored inside the memory zone of this cache open in this thread or asyncio
        task (``_ZONES``), if one is."""
        return (_ZONES.get(None) or {}).get(id(self))

    def __len__(self) -> int:
        with _LOCK:
            self._forget_another_process()
            return len(self._sizes)

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def get(self, key: str) -> np.ndarray | None:
        """The array stored under ``key`` (marking it recently used), or ``None``."""
        with _LOCK:
            self._forget_another_process()
            if key not in self._sizes:
                return None
            self._sizes.move_to_end(key)
            if self.directory is None:
                return self._arrays[key].copy()
            try:
                return np.load(self._path(key))
            except FileNotFoundError:  # removed behind the cache's back: a miss
                self._bytes -= self._sizes.pop(key)
                return None

    def put(self, key: str, layers: np.ndarray) -> None:
        """Store a copy of ``layers``, evicting the least recently used entries to fit."""
        size = entry_bytes(layers)
        with _LOCK:
            self._forget_another_process()
            if size > self.max_bytes or key in self._sizes:
                return
            while self._bytes + size > self.max_bytes:
                self._evict()
            value = np.array(layers, dtype="float32", copy=True)
            if self._folder is not None:
                if not self._save(key, value):
                    return
            else:
                self._arrays[key] = value
            self._sizes[key] = size
            self._bytes += size
            zone = self._open_zone()
            if zone is not None:
                zone.add(key)
                self._zone_of[key] = zone

    def _save(self, key: str, value: np.ndarray) -> bool:
        """Write the file of the entry ``key`` whole or not at all: under a temporary name in this
        cache's own folder (made at its first entry), renamed when complete. On an ``OSError`` (a full
        disk) the entry is not cached, which the first such failure of this cache says in a warning;
        returns whether it was written. A cache folder that is not this user's is refused (``_make_private_folder``)."""
        path = self._path(key)
        tmp = path.with_name(f".{path.name}.tmp")  # this process's folder, written under _LOCK: no other writer
        try:
            if not self._made:
                assert self.directory is not None, "an on-disk cache has a directory"
                _make_folder(self.directory, path.parent)
                self._made = True
            with open(tmp, "wb") as file:
                np.save(file, value, allow_pickle=False)
            os.replace(tmp, path)
        except FileExistsError:  # the folder is someone else's, or a file: not a full disk
            raise
        except OSError as err:
            tmp.unlink(missing_ok=True)
            if not self._failed_write:
                self._failed_write = True
                warnings.warn(
                    f"the elmo component's cache cannot write in {self._folder} ({error_text(err)}): the layers that cannot "
                    "be written there are recomputed when needed, not cached; free space there, or set another "
                    "cache_dir (or null, for memory)",
                    stacklevel=3,
                )
            return False
        return True

    def clear(self) -> None:
        with _LOCK:
            self._forget_another_process()
            while self._sizes:
                self._evict()

    @contextmanager
    def memory_zone(self) -> Iterator[None]:
        """A block whose stored entries (files too) are removed when it ends, as spaCy's
        ``nlp.memory_zone()`` removes the strings and lexemes added in it: the entries there before
        stay (unless evicted to make room, as ever). A zone inside another removes its own entries.
        Zones are per thread, and per asyncio task (a context variable, ``_ZONES``): a zone removes
        the entries stored inside it by its own thread or task, not those that others store
        meanwhile, in zones of their own or outside any; ``asyncio.to_thread`` and ``contextvars.
        copy_context().run`` carry the zone into the thread they run in."""
        outer = _ZONES.get(None) or {}
        zone: set[str] = set()
        _ZONES.set({**outer, id(self): zone})
        try:
            yield
        finally:
            _ZONES.set(outer)
            with _LOCK:
                self._forget_another_process()
                for key in list(zone):
                    self._remove(key)

    def _evict(self) -> None:
        self._remove(next(iter(self._sizes)))

    def _remove(self, key: str) -> None:
        """Remove the entry ``key`` (its file too)."""
        size = self._sizes.pop(key)
        if self._folder is not None:
            self._path(key).unlink(missing_ok=True)
        else:
            del self._arrays[key]
        self._bytes -= size
        zone = self._zone_of.pop(key, None)
        if zone is not None:
            zone.discard(key)

    def _path(self, key: str) -> Path:
        """The ``.npy`` file of an entry of an on-disk cache."""
        assert self._folder is not None, "an on-disk cache has a folder"
        return self._folder / f"{key}.npy"

    def _forget_another_process(self) -> None:
        """A copy of an on-disk cache in another process (a forked or unpickled worker of
        ``nlp.pipe(n_process=N)``) starts empty: its index names its parent's files, which are
        not its to read or remove. Its own folder goes inside its parent's, which the parent removes
        (a terminated worker removes nothing); it is made when the copy first stores an entry."""
        if self._folder is not None and self._pid != os.getpid():
            self._sizes.clear()
            for zone in self._zone_of.values():
                zone.clear()
            self._zone_of.clear()
            self._bytes = 0
            self._folder = _own_folder(self._folder, self)
            self._made = False
            self._pid = os.getpid()


#: The name of an on-disk cache's folder: ``elmo-cache-PID-XXXX``.
FOLDER_PREFIX = "elmo-cache-"


def _own_folder(directory: Path, cache: ActivationCache) -> Path:
    """A new folder name in ``directory`` for ``cache`` in this process; the folder (once made,
    with everything in it) is removed when the cache is collected or the process exits."""
    pid = os.getpid()
    folder = directory / f"{FOLDER_PREFIX}{pid}-{secrets.token_hex(4)}"
    weakref.finalize(cache, _remove_own_folder, folder, pid)
    return folder


def _make_folder(directory: Path, folder: Path) -> None:
    """Make ``folder`` in ``directory`` (and ``directory``, as the user's folders are); the folders
    of ended processes beside it go first. A worker's folder goes in its parent process's, which
    the worker may make first: it is made private too, as the parent would make it."""
    if folder.parent == directory:
        directory.mkdir(parents=True, exist_ok=True)
    else:
        _make_folder(directory, folder.parent)
    _remove_folders_of_ended_processes(folder.parent)
    _make_private_folder(folder)


def _make_private_folder(folder: Path) -> None:
    """Make ``folder`` for this user alone, as a temporary folder is. Another process of the same
    cache (a worker making its parent's folder) may have made it: it must be a folder of this
    user's, not a link or a file someone put there."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        status = folder.lstat()
        owner = os.getuid() if hasattr(os, "getuid") else status.st_uid  # Windows: no owner ids (st_uid is 0)
        if not stat.S_ISDIR(status.st_mode) or status.st_uid != owner:
            raise FileExistsError(
                f"the elmo component's cache folder {folder} is there already, and is not a folder of this user's "
                "(a link, a file or another user's folder): remove it, or set another cache_dir"
            ) from None


def _remove_own_folder(folder: Path, pid: int) -> None:
    """Remove ``folder`` if this is the process that made it (a forked child inherits the
    finalizers of its parent's caches, and must not remove their folders)."""
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def _remove_folders_of_ended_processes(directory: Path) -> None:
    """Remove the cache folders in ``directory`` whose process no longer runs."""
    for folder in directory.glob(f"{FOLDER_PREFIX}*"):
        pid = folder.name[len(FOLDER_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
