"""Populate a Hugging Face Hub cache folder (the layout huggingface_hub itself writes)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection
from pathlib import Path


def add_repo_to_cache(
    cache: Path,
    repo_id: str,
    files_from: Path,
    revision: str = "main",
    subfolder: str = "",
    fetched: Collection[str] | None = None,
) -> Path:
    """Store every file of ``files_from`` (its subfolders' too, as the repository's subfolders) as
    ``repo_id`` in ``cache``, in the repository's folder ``subfolder`` (its top by default): blobs,
    a snapshot, a ref. ``fetched``: the repository paths of the only files the snapshot holds, as a
    download of some files leaves it; the others are named in the repository's tree listing, which
    huggingface_hub keeps from any download and checks an offline ``snapshot_download`` against
    (a file its patterns ask for that the snapshot lacks: ``IncompleteSnapshotError``). Adding the
    same files again with more ``fetched`` adds those, as a later download does. Returns the
    snapshot, which, as huggingface_hub's, is not created where no file is fetched."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    files = sorted(p.relative_to(files_from) for p in files_from.rglob("*") if p.is_file())
    commit = hashlib.sha1(
        subfolder.encode()
        + "".join(f"{p}:{hashlib.sha256((files_from / p).read_bytes()).hexdigest()}" for p in files).encode()
    ).hexdigest()
    snapshot = repo / "snapshots" / commit
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    tree = {}
    for path in files:
        contents = (files_from / path).read_bytes()
        in_repo = (Path(subfolder) / path).as_posix()
        git_blob = hashlib.sha1(b"blob %d\0" % len(contents) + contents).hexdigest()
        tree[in_repo] = {"size": len(contents), "blob_id": git_blob}
        if fetched is not None and in_repo not in fetched:
            continue
        blob = repo / "blobs" / hashlib.sha256(contents).hexdigest()
        blob.write_bytes(contents)
        link = snapshot / subfolder / path
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():  # fetched before
            os.symlink(os.path.relpath(blob, link.parent), link)
    if fetched is not None:
        (repo / "trees").mkdir(exist_ok=True)
        (repo / "trees" / f"{commit}.json").write_text(json.dumps({"format_version": 1, "files": tree}))
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / revision).write_text(commit)
    return snapshot
