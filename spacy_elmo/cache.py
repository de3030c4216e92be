"""A bounded cache of a frozen biLM's layers, keyed by a doc's text, tokens and sentences."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import weakref
from collections import OrderedDict
from pathlib import Path

import numpy as np
from spacy.tokens import Doc


def doc_key(doc: Doc) -> str:
    """A digest of what the biLM reads of ``doc``: its text, token texts and sentence starts."""
    digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass"))
    for token in doc:
        digest.update(b"\x00" + token.text.encode("utf-8", "surrogatepass"))
    if doc.has_annotation("SENT_START"):
        digest.update(bytes(1 if token.is_sent_start else 0 for token in doc))
    return digest.hexdigest()


class ActivationCache:
    """Least-recently-used store of (L+1, n_tokens, 2P) float32 arrays, at most ``max_mb`` MiB.

    In memory by default; with ``directory`` the arrays are ``.npy`` files and only the index is
    in memory. The files go in a folder of this cache and process alone,
    ``directory/elmo-cache-PID-XXXX``, made at the first write (so two pipelines, or the worker
    processes of ``nlp.pipe(n_process=N)``, never read each other's layers or evict each
    other's files) and removed when the cache is collected or the process exits; a folder left
    by a process that no longer runs (killed) is removed by the next cache made in
    ``directory``. Valid only while the biLM's weights do not change: the owner calls
    ``clear()`` when it loads new ones. Arrays go in and come out as copies, so a caller that
    changes one in place cannot change the cache.
    """

    def __init__(self, max_mb: float, directory: str | Path | None = None) -> None:
        if max_mb < 0:
            raise ValueError(f"the cache size must be >= 0 MiB, got {max_mb}")
        self.max_bytes = int(max_mb * 2**20)
        self.directory = None if directory is None else Path(directory)
        self._sizes: OrderedDict[str, int] = OrderedDict()  # every entry's size, least recently used first
        self._arrays: dict[str, np.ndarray] = {}  # the entries themselves, when held in memory
        self._bytes = 0
        self._folder: Path | None = None  # this cache's own folder in ``directory``, once written to
        self._folder_pid = 0  # the process that made ``_folder``

    def __len__(self) -> int:
        return len(self._sizes)

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def get(self, key: str) -> np.ndarray | None:
        """The array stored under ``key`` (marking it recently used), or ``None``."""
        if self.directory is not None:
            self._own_folder()
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
        size = int(layers.nbytes)
        if size > self.max_bytes or key in self._sizes:
            return
        while self._bytes + size > self.max_bytes:
            self._evict()
        value = np.array(layers, dtype="float32", copy=True)
        if self.directory is not None:
            np.save(self._own_folder() / f"{key}.npy", value, allow_pickle=False)
        else:
            self._arrays[key] = value
        self._sizes[key] = size
        self._bytes += size

    def clear(self) -> None:
        while self._sizes:
            self._evict()

    def _evict(self) -> None:
        key, size = self._sizes.popitem(last=False)
        if self.directory is not None:
            self._path(key).unlink(missing_ok=True)
        else:
            del self._arrays[key]
        self._bytes -= size

    def _path(self, key: str) -> Path:
        """The ``.npy`` file of an entry of an on-disk cache."""
        assert self._folder is not None, "an in-memory cache has no files"
        return self._folder / f"{key}.npy"

    def _own_folder(self) -> Path:
        """This cache's folder in this process, made on first use. A forked copy of the cache
        (a worker of ``nlp.pipe(n_process=N)``) starts empty, with a folder of its own."""
        assert self.directory is not None, "an in-memory cache has no files"
        pid = os.getpid()
        if self._folder is None or self._folder_pid != pid:
            self._sizes.clear()  # a forked copy's index names its parent's files
            self._bytes = 0
            self.directory.mkdir(parents=True, exist_ok=True)
            _remove_folders_of_ended_processes(self.directory)
            self._folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{pid}-", dir=self.directory))
            self._folder_pid = pid
            weakref.finalize(self, _remove_own_folder, self._folder, pid)
        return self._folder


#: The name of an on-disk cache's folder: ``elmo-cache-PID-XXXX``.
FOLDER_PREFIX = "elmo-cache-"


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
