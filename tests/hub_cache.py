"""Populate a Hugging Face Hub cache folder (the layout huggingface_hub itself writes)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def add_repo_to_cache(cache: Path, repo_id: str, files_from: Path, revision: str = "main", subfolder: str = "") -> Path:
    """Store every file of ``files_from`` as ``repo_id`` in ``cache``, in the repository's folder
    ``subfolder`` (its top by default): blobs, a snapshot, a ref. Returns the snapshot."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    files = sorted(p for p in files_from.iterdir() if p.is_file())
    commit = hashlib.sha1(
        subfolder.encode() + "".join(f"{p.name}:{hashlib.sha256(p.read_bytes()).hexdigest()}" for p in files).encode()
    ).hexdigest()
    snapshot = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (snapshot / subfolder).mkdir(parents=True, exist_ok=True)
    for path in files:
        blob = repo / "blobs" / hashlib.sha256(path.read_bytes()).hexdigest()
        blob.write_bytes(path.read_bytes())
        os.symlink(os.path.relpath(blob, snapshot / subfolder), snapshot / subfolder / path.name)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / revision).write_text(commit)
    return snapshot
