"""The folders this package writes (models, exports): what each kind holds, which one an output may
replace, and how one is built aside and swapped into place (the write primitives: ``fileio``).

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
- The names of the files this package writes in its folders (``EXPORT_MANIFEST``, ``TRAINING_FILE``,
  ``SETTINGS_FILE``, ``CHECKPOINT_FILE``, ``MODEL_CODE_FILES``), each named here alone.

Folders get the usual mode (0777 less the umask). This module must not be imported by the modules
that travel as remote code (``tests/test_architecture.py`` checks their imports).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from transformers.utils import CONFIG_NAME

from .configuration_elmo import MOVING_IN, SAVE_LOCK, ElmoConfig, is_save_aside, read_json_file
from .fileio import (
    PathLike,
    abandoned_folders,
    check_parent_folders,
    check_writable,
    current_umask,
    ensure_free_space,
    folder_locked,
    fsync_folder,
    is_or_holds,
    put_back,
    swap_folder_in,
    unwritable_in_one_line,
)
from .messages import described, error_reason, some_of
from .tokenizer_settings import TOKENIZER_CONFIG

#: The folder of this package: its code and its shipped models (``hf_elmo.pretrained``), which no
#: command writes in (``check_output_folder``).
PACKAGE_FOLDER = Path(__file__).resolve().parent
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
    "char_ids.py",
    "configuration_elmo.py",
    "elmo_cache.py",
    "elmo_inputs.py",
    "elmo_kernels.py",
    "elmo_layers.py",
    "elmo_weights.py",
    "messages.py",
    "modeling_elmo.py",
    "modeling_heads.py",
    "modeling_lm.py",
    "pipelines.py",
    "scalar_mix.py",
    "tokenization_elmo.py",
    "tokenizer_settings.py",
    "word_splitting.py",
)
#: What the tokenizer's ``save_pretrained`` writes (with its code and its config's).
_TOKENIZER_FILES = (
    TOKENIZER_CONFIG,
    "special_tokens_map.json",
    "added_tokens.json",
    "tokenization_elmo.py",
    "tokenizer_settings.py",
    "char_ids.py",
    "word_splitting.py",
    "configuration_elmo.py",
    "messages.py",
)
#: The files of each kind of folder this package writes (``save_pretrained`` with its code, the
#: tokenizer, ``elmo pretrain``'s vocabulary and card; ``elmo export``'s graph and manifest; the lock file of a
#: ``save_pretrained``, which a killed one leaves, and filelock where there is no flock): what ``--overwrite`` may
#: replace in an earlier output of that kind.
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
        SAVE_LOCK,
        MOVING_IN,
    ),
    "export": (EXPORT_MANIFEST, "model.onnx", "model.pt2", *_TOKENIZER_FILES, SAVE_LOCK),
}


def others_files(folder: PathLike, kind: OutputKind) -> list[str]:
    """The names in ``folder`` that no output of this ``kind`` holds (``_OUTPUT_FILES``; of the folders, the hidden one
    that a killed ``save_pretrained`` left, ``is_save_aside``): the user's own files and folders, which replacing the
    folder would delete."""
    return sorted(entry.name for entry in Path(folder).iterdir() if not _holds(kind, entry))


def _holds(kind: OutputKind, entry: Path) -> bool:
    """Whether an output of this ``kind`` holds ``entry``, one of its folder's (``others_files``)."""
    if entry.is_symlink():
        return False
    if entry.is_dir():
        return is_save_aside(entry.name)
    return any(entry.match(pattern) for pattern in _OUTPUT_FILES[kind])


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
        if not out_dir.is_file():  # never "remove the file": /dev/full, /dev/null
            raise FileExistsError(f"{out_dir} is a device or pipe, not a folder; choose another output folder")
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
    (it holds no earlier output of elmo, one of another kind, or files of the user's), or None: also where it holds
    only what a killed first ``save_pretrained`` into it left (``_killed_save_only``)."""
    found = output_kind(out_dir)
    if found is None and _killed_save_only(out_dir):
        return None
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


def _killed_save_only(out_dir: Path) -> bool:
    """Whether ``out_dir`` holds nothing but a save's own files, ``SAVE_LOCK`` and its hidden folder (``_holds``): what
    a ``save_pretrained`` killed before its files were moved in left in the folder it made, elmo's to replace."""
    return all(
        (entry.name == SAVE_LOCK or is_save_aside(entry.name)) and _holds("model", entry) for entry in out_dir.iterdir()
    )


def _stale_staging(out_dir: Path) -> Iterator[Path]:
    """The staging folders of ``out_dir`` (and old copies moved aside, ``.old``) that no live process holds."""
    yield from abandoned_folders(
        out_dir.parent, re.compile(re.escape(f".{out_dir.name}{_STAGING}") + r"[a-z0-9_]{8}(\.old)?")
    )


def moved_aside(out_dir: PathLike) -> Path | None:
    """The old ``out_dir`` that a build killed between its two renames (``build_aside``) left moved aside
    (``.OUT.building-XXXXXXXX.old``), ``out_dir`` itself missing; ``None`` where there is none."""
    out_dir = Path(out_dir).expanduser()
    if out_dir.exists() or out_dir.is_symlink():
        return None
    return next((candidate for candidate in _stale_staging(out_dir) if candidate.name.endswith(".old")), None)


def restore_moved_aside(out_dir: PathLike) -> None:
    """Put back the old ``out_dir`` that a build killed between its two renames left moved aside
    (``moved_aside``): the next build finds the output as it was, replaced only with ``overwrite``, never
    removed as a stale staging folder."""
    old = moved_aside(out_dir)
    if old is not None:
        put_back(old, Path(out_dir).expanduser())


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
    with unwritable_in_one_line(parent, out_dir):  # the folder became unwritable since check_output_folder's check
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(out_dir)
        ensure_free_space(parent, expected_bytes, f"the folder {out_dir.name}")
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}{_STAGING}", dir=parent))
    try:
        with folder_locked(staging):
            yield staging
            check_output_folder(out_dir, overwrite=overwrite, inputs=inputs, kind=kind, into_package=into_package)
            staging.chmod(0o777 & ~current_umask())
            old = staging.with_name(staging.name + ".old")
            swap_folder_in(staging, out_dir, old)
            fsync_folder(parent)
            if old.exists():
                _remove_old_copy(old, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _remove_old_copy(old: Path, out_dir: Path) -> None:
    """Remove ``old``, the copy of ``out_dir`` that a new one replaced; what cannot be removed is
    left and named in a one-line warning (the new ``out_dir`` is complete either way)."""
    try:
        shutil.rmtree(old)
    except OSError as err:
        reason = error_reason(err)
        _logger.warning(
            "%s is written, but its old copy %s could not be removed (%s); delete it yourself", out_dir, old, reason
        )
