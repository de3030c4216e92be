"""Populate a Hugging Face Hub cache folder (the layout huggingface_hub itself writes)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def add_repo_to_cache(cache: Path, repo_id: str, files_from: Path, revision: str = "main", subfolder: str = "") -> Path:
    """Store every file of ``files_from`` (its subfolders' too, as the repository's subfolders) as
    ``repo_id`` in ``cache``, in the repository's folder ``subfolder`` (its top by default): blobs,
    a snapshot, a ref. Returns the snapshot."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    files = sorted(p.relative_to(files_from) for p in files_from.rglob("*") if p.is_file())
    commit = hashlib.sha1(
        subfolder.encode()
        + "".join(f"{p}:{hashlib.sha256((files_from / p).read_bytes()).hexdigest()}" for p in files).encode()
    ).hexdigest()
    snapshot = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (snapshot / subfolder).mkdir(parents=True, exist_ok=True)
    for path in files:
        contents = (files_from / path).read_bytes()
        blob = repo / "blobs" / hashlib.sha256(contents).hexdigest()
        blob.write_bytes(contents)
        link = snapshot / subfolder / path
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(blob, link.parent), link)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / revision).write_text(commit)
    return snapshot
