"""A bounded cache of a frozen biLM's layers, keyed by a doc's text, tokens and sentences."""

from __future__ import annotations

import hashlib
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

        In memory by default; with ``directory`` the arrays are ``.npy`` files there and only the
        index is in memory. Valid only while the biLM's weights do not change: the owner calls
        ``clear()`` when it loads new ones. Arrays go in and come out as copies, so a caller that
    changes one in place cannot change the cache.
    """

    def __init__(self, max_mb: float, directory: str | Path | None = None) -> None:
        if max_mb < 0:
            raise ValueError(f"the cache size must be >= 0 MiB, got {max_mb}")
        self.max_bytes = int(max_mb * 2**20)
        self.directory = None if directory is None else Path(directory)
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
        self._sizes: OrderedDict[str, int] = OrderedDict()  # every entry's size, least recently used first
        self._arrays: dict[str, np.ndarray] = {}  # the entries themselves, when held in memory
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._sizes)

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def get(self, key: str) -> np.ndarray | None:
        """The array stored under ``key`` (marking it recently used), or ``None``."""
        if key not in self._sizes:
            return None
        self._sizes.move_to_end(key)
        return np.load(self._path(key)) if self.directory is not None else self._arrays[key].copy()

    def put(self, key: str, layers: np.ndarray) -> None:
        """Store a copy of ``layers``, evicting the least recently used entries to fit."""
        size = int(layers.nbytes)
        if size > self.max_bytes or key in self._sizes:
            return
        while self._bytes + size > self.max_bytes:
            self._evict()
        value = np.array(layers, dtype="float32", copy=True)
        if self.directory is not None:
            np.save(self._path(key), value, allow_pickle=False)
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
        assert self.directory is not None, "an in-memory cache has no files"
        return self.directory / f"{key}.npy"
