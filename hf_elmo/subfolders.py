"""Where a model sits inside the folder its name points at: ``from_pretrained``'s ``subfolder`` of
a shipped model's folder, a local folder or a Hub repository's snapshot (``in_subfolder``; one that
leads out of it is refused, ``check_inside``), and,
for a folder that holds no model, the subfolders that do (``subfolder_hint``); with
``ModelNotFoundError``, the error for a name under which no model is found, raised here, by the
Hub fetching (``hf_elmo.hub``) and by the resolver (``hf_elmo.loading``, which imports it from here).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from transformers.utils import CONFIG_NAME

from .configuration_elmo import is_save_aside
from .elmo_weights import InvalidModelError
from .original_files import is_options_name


class ModelNotFoundError(FileNotFoundError):
    """No model under that name: not shipped, not a local path, not a Hub id that can be had."""


def in_subfolder(folder: Path, subfolder: str, where: str) -> Path:
    """``folder``'s ``subfolder`` (``from_pretrained``'s; ``folder`` itself where none is given):
    the model's folder inside a shipped model, a local folder or a Hub repository's snapshot.
    ``where`` names ``folder`` in the errors: ``InvalidModelError`` for a file (a ``.zip`` archive
    is one model), ``ModelNotFoundError`` for a subfolder that is not there."""
    if not subfolder:
        return folder
    check_inside(subfolder, where)
    if folder.is_file():
        raise InvalidModelError(
            f"{where} is a file, which has no subfolder {subfolder!r} (a .zip archive holds one model): extract it "
            "and give the folder that holds the model, or leave subfolder out"
        )
    if not (folder / subfolder).is_dir():
        raise ModelNotFoundError(
            f"{where} has no subfolder {subfolder!r}: give the subfolder that holds the model's files, or leave "
            "subfolder out"
        )
    return folder / subfolder


def check_inside(subfolder: str, where: str) -> None:
    """Raise ``ValueError`` for a ``subfolder`` that is no path inside ``where``'s folder: an absolute
    one (``folder / "/abs"`` is ``/abs``: another folder, loaded silently) or one through ``..``."""
    parts = PurePosixPath(subfolder.replace("\\", "/")).parts
    if PurePosixPath(subfolder).is_absolute() or PureWindowsPath(subfolder).is_absolute() or ".." in parts:
        raise ValueError(
            f"subfolder {subfolder!r} is no path inside {where} (it is absolute, or goes up through '..'): give "
            "the path of the model's folder inside it (e.g. subfolder='models/small'), or give the other folder "
            "itself as the model's name"
        )


def subfolder_hint(folder: Path, subfolder: str) -> str:
    """For the error about ``folder`` (``subfolder`` of a model's name), which holds no model: where
    the folders right inside it hold models (a ``config.json`` or an options file), the
    ``subfolder`` to pass for them (not the hidden folder of a save killed midway, ``is_save_aside``); else ""."""
    if not folder.is_dir():
        return ""
    models = [
        child.name
        for child in sorted(folder.iterdir())
        if child.is_dir()
        and not is_save_aside(child.name)
        and ((child / CONFIG_NAME).is_file() or any(is_options_name(file.name) for file in child.iterdir()))
    ]
    if not models:
        return ""
    inside = [f"{subfolder.strip('/')}/{model}" if subfolder else model for model in models]
    return (
        f"; it holds {'a model' if len(inside) == 1 else 'models'} in its subfolder{'s' * (len(inside) > 1)} "
        f"{', '.join(map(repr, inside))}: pass {'it' if len(inside) == 1 else 'one'} as from_pretrained's subfolder "
        f"(subfolder={inside[0]!r})"
    )
