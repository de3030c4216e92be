"""Where a model comes from: the one resolver behind every way of naming a model.

``ElmoModel.from_pretrained`` (and the other ELMo classes'), every ``elmo`` command's model
argument and spaCy's ``spacy-elmo.ElmoLoader.v1`` hand what the user wrote to ``resolve_model``,
which tries, in this order:

1. a shipped model name, ``hf-elmo:NAME`` (``hf_elmo.pretrained.SHIPPED``). A colon is not
   allowed in Hub ids, so these names never shadow a Hub repository;
2. an existing local path: a ``save_pretrained`` folder (``config.json`` + ``model.safetensors``),
   a folder of the original files (``options.json`` + weights ``*.hdf5``; AllenNLP's released files keep
   their names, ``elmo_2x4096_512_2048cnn_2xhighway_options.json`` + ``..._weights.hdf5``, here, in an
   archive and in a Hub repository: ``original_options_file``), or a ``.zip`` archive of the original
   files (the NLPL repository's; the files may sit in a subfolder);
3. a Hub id ``owner/name``: its files are fetched into, or (offline) found in, the Hub cache.

``from_pretrained``'s ``subfolder`` names the model's folder inside a shipped model's folder, a
local folder or a Hub repository (``_in_subfolder``); a ``.zip`` archive has none.

Anything else fails at once with a one-line ``ModelNotFoundError`` that names it and says what
was tried: only a name of the form ``owner/name`` ever waits for the network.

This module also builds models from the original files (``load_allennlp``, with the LM softmax
``load_allennlp_with_softmax``; the weights themselves come from the pure converter
``hf_elmo.convert``) and writes converted folders (``convert_to_folder``, ``elmo convert``).

It sits above the model classes, which must not import it (a saved folder's code copies travel
without the package). They reach it through one hook instead: importing this module (importing
``hf_elmo`` does) sets ``ElmoPreTrainedModel.package_loader``, ``ElmoTokenizer.package_loader``
and ``ElmoConfig.package_loader`` to ``PACKAGE_LOADER``, through which ``from_pretrained`` (of all
three), ``from_allennlp`` and ``from_allennlp_with_softmax`` call back into this module with their
own class. A remote-code copy
of those classes has no loader, and loads folders and Hub ids as any transformers model does.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import os
import re
import shutil
import tempfile
import weakref
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import PreTrainedModel
from transformers.utils import SAFE_WEIGHTS_INDEX_NAME, SAFE_WEIGHTS_NAME

from .configuration_elmo import FIELD_CHECKS, HUB_KWARGS, WHITESPACE, ElmoConfig, check_size
from .convert import (
    ELMOFORMANYLANGS_MODEL,
    MAX_INFLATION,
    ElmoWeightsError,
    elmo_state_dict,
    foreign_data,
    inflates_too_much,
    is_elmoformanylangs_config,
    no_shape,
    non_finite,
    read_options,
    stored_shape,
    unstored_values,
)
from .fileio import (
    CHECKPOINT_FILE,
    EXPORT_MANIFEST,
    SETTINGS_FILE,
    PathLike,
    build_aside,
    check_output_folder,
    ensure_free_space,
)
from .logs import quiet_records
from .modeling_elmo import ElmoModel, ElmoPreTrainedModel, InvalidModelError, check_loaded_weights, weights_file
from .modeling_lm import ElmoForBidirectionalLM
from .pretrained import RETIRED, SHIPPED, SHIPPED_PREFIX
from .tokenization_elmo import TOKENIZER_CONFIG, ElmoTokenizer

#: ``from_pretrained`` keyword arguments that say where on the Hub to look.
#: What a ``save_pretrained`` folder needs from the Hub (weights, config, tokenizer, vocab, card, code).
_TRANSFORMERS_FILES = ["*.json", "*.safetensors", "*.txt", "*.md", "*.py"]
_OWNER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


#: Where spacy_elmo's ``elmo`` component saves its biLM (a ``save_pretrained`` folder) inside a
#: pipeline: ``<pipeline>/<component>/bilm``; a pipeline's folder given as a model names it.
BILM_FOLDER = "bilm"

#: What an ``elmo`` component saved before its weights were loaded writes instead: a note that it
#: has none (``<pipeline>/<component>/no-bilm.txt``).
NO_BILM_FILE = "no-bilm.txt"


class ModelNotFoundError(FileNotFoundError):
    """No model under that name: not shipped, not a local path, not a Hub id that can be had."""


@dataclass(frozen=True)
class ModelSource:
    """A resolved model.

    Attributes:
        name: what the user wrote.
        path: a local folder, or (original format only) a ``.zip`` archive.
        format: ``"transformers"`` (``config.json`` + ``model.safetensors``) or ``"original"``
            (``options.json`` + weights ``.hdf5``, converted on load).
        origin: ``"shipped"``, ``"local"`` or ``"hub"``.
        config: a transformers-format folder's ``config.json``, read and checked (``None`` for
            original files).
        weight_shapes: the shapes in its ``model.safetensors`` header (``None`` for original files
            and sharded weights).
        subfolder: ``from_pretrained``'s, the folder inside ``name`` that ``path`` is ("" for none).
    """

    name: str
    path: Path
    format: str
    origin: str
    config: ElmoConfig | None = field(default=None, compare=False)
    weight_shapes: dict[str, tuple[int, ...]] | None = field(default=None, compare=False)
    subfolder: str = ""

    @property
    def described(self) -> str:
        """What errors call the model: ``name``, with its ``subfolder`` where one was given."""
        return f"{self.name} (subfolder {self.subfolder!r})" if self.subfolder else self.name

    @property
    def has_lm_head(self) -> bool:
        """Whether the folder holds a biLM with its word softmax (written by ``elmo pretrain``),
        read from its ``config.json``'s ``architectures`` (``ElmoConfig.has_lm_head``)."""
        return self.config is not None and self.config.has_lm_head

    @contextmanager
    def original_files(self) -> Iterator[tuple[Path, Path]]:
        """``(options.json, weights.hdf5)`` of an original-format source; an archive's files are
        extracted into a temporary folder that is removed on exit."""
        with self._original_folder(weights=True) as folder:
            yield find_original_files(folder)

    @contextmanager
    def original_options(self) -> Iterator[Path]:
        """The ``options.json`` of an original-format source, for what is read before its weights
        (its config, its shape); an archive's is extracted alone into a temporary folder that is
        removed on exit (its weights are hundreds of MB for the released models: ``original_files``
        extracts them where they are loaded)."""
        with self._original_folder(weights=False) as folder:
            options = original_options_file(folder)
            assert options is not None  # resolve_model found it, or _extract_original_files wrote it
            yield options

    @contextmanager
    def _original_folder(self, weights: bool) -> Iterator[Path]:
        """The folder of an original-format source, or, for an archive, a temporary one holding its
        ``options.json`` and (``weights``) its ``.hdf5`` files."""
        if self.format != "original":
            raise ValueError(f"{self.name} is a save_pretrained folder, not original files")
        if self.path.is_dir():
            yield self.path
            return
        with tempfile.TemporaryDirectory(prefix="hf-elmo-archive-") as folder:
            try:
                yield _extract_original_files(self.path, Path(folder), weights)
            except (OSError, ValueError) as err:  # name the archive (ARCHIVE/options.json), not the temporary folder
                renamed = _renamed_error(err, folder, str(self.path))
                if renamed is None:
                    raise
                raise renamed from None


def resolve_model(
    name_or_path: PathLike, variant: str | None = None, subfolder: str = "", **hub_kwargs: Any
) -> ModelSource:
    """Where the model called ``name_or_path`` is (see the module docstring for the order).

    ``variant``: ``from_pretrained``'s, the weights file of a ``save_pretrained(variant=...)``
    folder (``model.VARIANT.safetensors``) that the source's ``weight_shapes`` are read from.
    ``subfolder``: ``from_pretrained``'s, the folder inside the shipped model, local folder or Hub
    repository that holds the model (``_in_subfolder``); the source's ``path`` is that folder.
    ``hub_kwargs`` are ``from_pretrained``'s Hub arguments (``HUB_KWARGS``); others are ignored.
    Raises ``ModelNotFoundError`` (nothing found, no such subfolder), ``InvalidModelError`` (found,
    not loadable) or ``ElmoConfigError`` (a bad field in its ``config.json``).
    """
    name = os.fspath(name_or_path)
    path = Path(name).expanduser()
    if name.startswith(SHIPPED_PREFIX):
        source = _shipped(name, variant, subfolder)
    elif path.exists():
        source = _local(name, _in_subfolder(path, subfolder, name), "local", variant, subfolder)
    elif _OWNER_NAME.match(name):
        source = _from_hub(name, _hub_arguments(hub_kwargs), variant, subfolder)
    else:
        raise ModelNotFoundError(
            f"no model {name!r}: no such local file or folder, not a shipped model ({_shipped_names()}), "
            "and not a Hub id (owner/name)"
        )
    return replace(source, subfolder=subfolder)


def _in_subfolder(folder: Path, subfolder: str, where: str) -> Path:
    """``folder``'s ``subfolder`` (``from_pretrained``'s; ``folder`` itself where none is given):
    the model's folder inside a shipped model, a local folder or a Hub repository's snapshot.
    ``where`` names ``folder`` in the errors: ``InvalidModelError`` for a file (a ``.zip`` archive
    is one model), ``ModelNotFoundError`` for a subfolder that is not there."""
    if not subfolder:
        return folder
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


def _hub_patterns(
    subfolder: str, allow: Sequence[str], ignore: Sequence[str] = (), depth: int = 0
) -> dict[str, list[str]]:
    """``snapshot_download``'s ``allow_patterns`` and ``ignore_patterns`` for the files of a Hub
    repository's ``subfolder`` (its top where none is given) that match ``allow`` and none of
    ``ignore``, and not the files of the folders inside it (``depth`` levels of folders down:
    ``allow`` then names them, e.g. ``*/config.json``): huggingface_hub's ``*`` matches ``/`` too
    (``huggingface_hub.utils.filter_repo_objects``), so ``*.safetensors`` alone would fetch the
    weights of every model the repository holds in its folders."""
    prefix = f"{subfolder.strip('/')}/" if subfolder else ""
    deeper = "*/" * (depth + 1) + "*"
    return {
        "allow_patterns": [prefix + pattern for pattern in allow],
        "ignore_patterns": [prefix + pattern for pattern in [*ignore, deeper]],
    }


def _hub_arguments(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The Hub arguments (``HUB_KWARGS``: cache, revision, token, ...) among ``from_pretrained``'s ``kwargs``."""
    return {k: v for k, v in kwargs.items() if k in HUB_KWARGS}


def _shipped_names() -> str:
    return ", ".join(SHIPPED_PREFIX + n for n in SHIPPED)


def _shipped(name: str, variant: str | None = None, subfolder: str = "") -> ModelSource:
    short = name[len(SHIPPED_PREFIX) :]
    folder = SHIPPED.get(short)
    if folder is None and short in RETIRED:
        successor, what = RETIRED[short]
        raise ModelNotFoundError(
            f"{name!r} is no longer shipped ({what}); use {SHIPPED_PREFIX}{successor}, which replaced it"
        )
    if folder is None:
        raise ModelNotFoundError(f"no shipped model {name!r}; the package ships {_shipped_names()}")
    return _local(name, _in_subfolder(folder, subfolder, f"the shipped model {name!r}"), "shipped", variant, subfolder)


def _local(name: str, path: Path, origin: str, variant: str | None = None, subfolder: str = "") -> ModelSource:
    """The model in ``path``: ``name``'s folder (its ``subfolder``, which ``path`` is) or archive."""
    _refuse_a_checkpoint_folder(path)
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise InvalidModelError(
                f"{path} is a file, but a model is a folder (config.json + model.safetensors, or options.json + "
                "weights .hdf5) or a .zip archive of the original files"
            )
        _original_member_folder(path)  # fails early, naming the archive, if it holds no options file
        return ModelSource(name, path, "original", origin)
    if (path / "config.json").is_file():
        return _transformers_source(name, path, origin, variant)
    if original_options_file(path) is not None and any(_is_weights_name(p.name) for p in path.glob("*.hdf5")):
        return ModelSource(name, path, "original", origin)
    _refuse_a_spacy_pipeline(path)
    if (path / EXPORT_MANIFEST).is_file():
        raise InvalidModelError(
            f"{path} is an `elmo export` folder (a graph for serving, without the model's weights and config): run it "
            "with hf_elmo.export.open_exported(folder) (OnnxElmo, TorchExportElmo), or load the model it was "
            "exported from"
        )
    raise InvalidModelError(
        f"{path} is not an ELMo model folder: it holds neither config.json + model.safetensors (elmo convert, "
        "elmo pretrain, save_pretrained) nor options.json (or AllenNLP's NAME_options.json) + a weights .hdf5 (the "
        f"original files){_subfolder_hint(path, subfolder)}"
    )


def _subfolder_hint(folder: Path, subfolder: str) -> str:
    """For the error about ``folder`` (``subfolder`` of a model's name), which holds no model: where
    the folders right inside it hold models (a ``config.json`` or an options file), the
    ``subfolder`` to pass for them; else ""."""
    if not folder.is_dir():
        return ""
    models = [
        child.name
        for child in sorted(folder.iterdir())
        if child.is_dir()
        and ((child / "config.json").is_file() or any(_is_options_name(file.name) for file in child.iterdir()))
    ]
    if not models:
        return ""
    inside = [f"{subfolder.strip('/')}/{model}" if subfolder else model for model in models]
    return (
        f"; it holds {'a model' if len(inside) == 1 else 'models'} in its subfolder{'s' * (len(inside) > 1)} "
        f"{', '.join(map(repr, inside))}: pass {'it' if len(inside) == 1 else 'one'} as from_pretrained's subfolder "
        f"(subfolder={inside[0]!r})"
    )


def _refuse_a_spacy_pipeline(path: Path) -> None:
    """Refuse the folder of a saved spaCy pipeline (``nlp.to_disk``: a ``config.cfg``, no
    ``config.json``), naming the biLM folders of its ``elmo`` components (or saying they have none)."""
    if not (path / "config.cfg").is_file() or (path / "config.json").is_file():
        return
    bilms = sorted(str(config.parent) for config in path.glob(f"*/{BILM_FOLDER}/config.json"))
    if bilms:
        hint = f"give the biLM folder its elmo component saved instead: {' or '.join(bilms)}"
    elif any(path.glob(f"*/{NO_BILM_FILE}")):
        hint = (
            "its elmo component was saved before nlp.initialize(), without biLM weights: give an ELMo model "
            "folder, Hub id or shipped model name instead"
        )
    else:
        hint = "it holds no elmo component"
    raise InvalidModelError(f"{path} is a spaCy pipeline, not an ELMo model folder: {hint}")


def _refuse_a_checkpoint_folder(path: Path) -> None:
    """Raise ``InvalidModelError`` when ``path`` is the checkpoint folder of an ``elmo pretrain`` run
    (``SETTINGS_FILE`` and ``CHECKPOINT_FILE``) or its ``CHECKPOINT_FILE``, saying where its model is."""
    folder = path.parent if path.name == CHECKPOINT_FILE and path.is_file() else path
    if (folder / SETTINGS_FILE).is_file() and (folder / CHECKPOINT_FILE).is_file():
        raise InvalidModelError(
            f"{folder} is the checkpoint folder of an `elmo pretrain` run (its weights, optimizer and data position, "
            "to resume it), not a model: use the model folder that the run writes at its end (run its command "
            "again to finish it), or a snapshot that --snapshot-tokens wrote in it"
        )


def _transformers_source(name: str, folder: Path, origin: str, variant: str | None = None) -> ModelSource:
    """A ``save_pretrained`` folder whose ``config.json`` reads as an ``ElmoConfig`` (errors name the
    file and field) and whose weights file (of ``variant``) is there and reads (``_stored_shapes``)."""
    _refuse_elmoformanylangs(folder)
    config = ElmoConfig.from_pretrained(folder)
    return ModelSource(name, folder, "transformers", origin, config, _stored_shapes(folder, variant))


def _refuse_elmoformanylangs(folder: Path) -> None:
    """Name an ELMoForManyLangs model (its config.json has ``token_embedder`` and ``encoder``), which
    would otherwise read as an ELMo config of default fields without weights."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # ElmoConfig names the problem
    if is_elmoformanylangs_config(config):
        raise InvalidModelError(f"{folder} is {ELMOFORMANYLANGS_MODEL}")


def _stored_shapes(folder: Path, variant: str | None = None) -> dict[str, tuple[int, ...]] | None:
    """The weight shapes in the header of the folder's ``model.safetensors`` (``model.VARIANT.safetensors``
    for a ``variant``; ``None`` for sharded weights): a cheap read that names the file, where a
    corrupt or missing file would otherwise fail deep in transformers. A folder that holds the
    weights of other variants only is named with the ``variant`` to pass."""
    from safetensors import SafetensorError, safe_open

    weights = folder / weights_file(SAFE_WEIGHTS_NAME, variant)
    if not weights.is_file():
        if (folder / weights_file(SAFE_WEIGHTS_INDEX_NAME, variant)).is_file():
            return None  # sharded: transformers checks the shards
        others = _saved_variants(folder) - {variant}
        if others:
            choices = " or ".join(f"variant={other!r}" for other in sorted(others, key=str))
            raise InvalidModelError(
                f"{folder} has no {weights.name} but holds the weights of another variant: pass {choices} to "
                "from_pretrained"
            )
        raise InvalidModelError(
            f"{folder} has a config.json but no {weights.name} (only safetensors weights are loaded); "
            "re-create the folder with save_pretrained or elmo convert"
        )
    try:
        with safe_open(str(weights), framework="pt") as handle:
            return {key: tuple(handle.get_slice(key).get_shape()) for key in handle.keys()}
    except (SafetensorError, OSError, ValueError) as err:
        raise InvalidModelError(
            f"{weights} is not a readable safetensors file ({err}); re-create or re-download it"
        ) from None


#: A weights file or shard index that ``save_pretrained`` writes: the variant is group 1 or 2 (none: neither).
_WEIGHTS_FILE = re.compile(
    r"model(?:\.([^.]+?))?(?:-\d+-of-\d+)?\.safetensors|model\.safetensors\.index(?:\.(.+))?\.json"
)


def _saved_variants(folder: Path) -> set[str | None]:
    """The variants whose safetensors weights ``folder`` holds, ``None`` for those saved without one."""
    found = (_WEIGHTS_FILE.fullmatch(file.name) for file in folder.iterdir())
    return {match.group(1) or match.group(2) for match in found if match}


def check_weight_shapes(
    source: ModelSource, model_class: type[ElmoPreTrainedModel], overrides: dict[str, Any] | None = None
) -> None:
    """Refuse, before ``model_class`` is built from ``source``'s config, a weights file whose shapes
    are not the config's for a part that cannot start afresh (the biLM, an LM's softmax; a task
    head's own layers may, with ``ignore_mismatched_sizes``). transformers would first build the
    model at the config's sizes and draw those weights afresh (an edited ``lstm_dim``: gigabytes,
    seconds) before ``check_loaded_weights`` refuses them; this reads the file's header and builds
    the model on the meta device (milliseconds), and refuses in the same words. ``overrides``:
    config fields given to ``from_pretrained``, applied to the file's config first (a bad one is
    left for ``from_pretrained`` to name).
    """
    stored = source.weight_shapes
    if stored is None or source.config is None:
        return
    config = copy.deepcopy(source.config)  # the constructor may set fields (freeze_bilm)
    try:
        for name, value in (overrides or {}).items():
            setattr(config, name, value)
        config.validate()
    except ValueError:
        return
    with torch.device("meta"):
        model = model_class(config)
    wanted = {_without_prefix(key): (key, tuple(tensor.shape)) for key, tensor in model.state_dict().items()}
    in_file = {_without_prefix(key): key for key in stored}
    if all(
        stored[in_file[short]] == shape or key.split(".")[0] in model._new_on_load
        for short, (key, shape) in wanted.items()
        if short in in_file
    ):
        return  # what else is wrong (a missing layer, a head's shape) costs little, and is checked after loading
    ignored = model._keys_to_ignore_on_load_unexpected or []
    info = {  # as from_pretrained's loading info would list them
        "missing_keys": [key for short, (key, _) in wanted.items() if short not in in_file],
        "unexpected_keys": [
            key
            for short, key in in_file.items()
            if short not in wanted and not any(re.search(pattern, key) for pattern in ignored)
        ],
        "mismatched_keys": [
            (key, stored[in_file[short]], shape)
            for short, (key, shape) in wanted.items()
            if short in in_file and stored[in_file[short]] != shape
        ],
    }
    check_loaded_weights(model, source.path, info, ignore_mismatched_sizes=True)


def _without_prefix(key: str) -> str:
    """A weight's key without the ``elmo.`` of the models around the biLM (LM, task heads)."""
    return key.removeprefix(f"{ElmoModel.base_model_prefix}.")


def _is_options_name(name: str) -> bool:
    """Whether a file's base name is an options file's (``_OPTIONS_NAMES``)."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in _OPTIONS_NAMES)


def _original_member_folder(archive: Path) -> str:
    """The folder inside ``archive`` that holds the options file ("" for the top level)."""
    try:
        with zipfile.ZipFile(archive) as handle:
            names = [n for n in handle.namelist() if not n.endswith("/")]
    except (zipfile.BadZipFile, OSError) as err:
        raise InvalidModelError(f"{archive} is not a readable zip archive ({err})") from None
    folders = sorted({n[: n.rfind("/") + 1] for n in names if _is_options_name(n[n.rfind("/") + 1 :])})
    if len(folders) != 1 or not any(n.startswith(folders[0]) and _is_weights_name(n[len(folders[0]) :]) for n in names):
        raise InvalidModelError(
            f"{archive} does not hold one options.json with a weights .hdf5 beside it (found options files in "
            f"{[f or '.' for f in folders]}); it is not an archive of the original ELMo files"
        )
    inside = [n[len(folders[0]) :] for n in names if n.startswith(folders[0])]
    _options_name([n for n in inside if "/" not in n], f"{archive} ({folders[0] or 'at its top'})")
    return folders[0]


def _extract_original_files(archive: Path, into: Path, weights: bool) -> Path:
    """Copy the archive's options files (``options.json``, AllenNLP's ``NAME_options.json``) and
    (``weights``) the ``.hdf5`` files beside them that may be the biLM's weights (``_is_weights_name``:
    not its softmax or embeddings dumps) into ``into`` (flat, under their base names: no member path
    ever leaves ``into``), where ``original_options_file`` picks the options file. Before any is
    written, each is checked (``_refuse_a_bomb``) and their declared sizes must fit on the disk of
    the temporary folder (``ensure_free_space``: an ``OSError`` (ENOSPC) naming it and TMPDIR)."""
    prefix = _original_member_folder(archive)
    with zipfile.ZipFile(archive) as handle:
        members = []
        for member in handle.namelist():
            rest = member[len(prefix) :]
            wanted = _is_options_name(rest) or (weights and _is_weights_name(rest))
            if member.startswith(prefix) and "/" not in rest and wanted:
                _refuse_a_bomb(archive, handle.getinfo(member))
                members.append(member)
        ensure_free_space(
            into.parent,
            sum(handle.getinfo(member).file_size for member in members),
            f"extracting {archive} into a temporary folder",
            "load it again, or set TMPDIR to a folder on a disk with room, or extract the archive elsewhere and give "
            "its folder",
        )
        for member in members:
            rest = member[len(prefix) :]
            try:
                with handle.open(member) as source, open(into / rest, "wb") as target:
                    while block := source.read(1 << 20):
                        target.write(block)
            except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as err:
                # a bad CRC, a truncated or corrupt stream, a password (RuntimeError), another compression
                raise InvalidModelError(
                    f"{archive}: its member {member} cannot be extracted ({err}); re-download the archive, or "
                    "extract it with another tool and give the folder"
                ) from None
    return into


def _refuse_a_bomb(archive: Path, member: zipfile.ZipInfo) -> None:
    """Refuse, before it is extracted, a member that inflates more than ``MAX_INFLATION`` times (a
    zip bomb: gigabytes written to the temporary folder from a small archive), naming the archive
    and member. The size it declares is the most zipfile extracts."""
    if inflates_too_much(member.file_size, member.compress_size):
        raise InvalidModelError(
            f"{archive}: its member {member.filename} inflates to {member.file_size:,} bytes from "
            f"{member.compress_size:,} ({member.file_size // max(member.compress_size, 1):,}x), more than any ELMo "
            f"file compresses ({MAX_INFLATION}x): a zip bomb? it is not extracted; get the model from where it was "
            "published"
        )


def _from_hub(repo_id: str, hub: dict[str, Any], variant: str | None = None, subfolder: str = "") -> ModelSource:
    """Fetch (or find in the cache) what the repository (its ``subfolder``) needs: first the small
    files that say its format, then that format's files."""
    if (_hub_probe(repo_id, hub, subfolder=subfolder) / "config.json").is_file():
        folder = _snapshot(repo_id, hub, **_hub_patterns(subfolder, _TRANSFORMERS_FILES))
        return _transformers_source(repo_id, folder / subfolder, "hub", variant)
    folder = _snapshot(repo_id, hub, **_hub_patterns(subfolder, [*_OPTIONS_NAMES, "*.hdf5"], _NOT_WEIGHTS_NAMES))
    return ModelSource(repo_id, folder / subfolder, "original", "hub")


def _hub_probe(
    repo_id: str,
    hub: dict[str, Any],
    marks: Sequence[str] = ("config.json",),
    patterns: Sequence[str] = (),
    subfolder: str = "",
) -> Path:
    """The folder (``subfolder``, ``_in_subfolder``) of the repository's snapshot holding its small
    files that say its format (one of ``marks``, e.g. ``config.json``: a ``save_pretrained`` folder;
    or an options file, ``original_options_file``'s: the original files) and those matching
    ``patterns``, fetched into (or found in) the cache; ``InvalidModelError`` when it holds none."""
    snapshot = _snapshot(repo_id, hub, **_hub_patterns(subfolder, [*marks, *_OPTIONS_NAMES, *patterns]))
    offline = " (its copy in the local Hub cache: offline)" if _offline(hub) else ""
    folder = _in_subfolder(snapshot, subfolder, f"Hub repository {repo_id}{offline}")
    # nothing fetched (online): snapshot_download names a snapshot folder that it did not create
    if not any((folder / mark).is_file() for mark in marks) and (
        not folder.is_dir() or original_options_file(folder) is None
    ):
        inside = f" (subfolder {subfolder!r})" if subfolder else ""
        raise InvalidModelError(
            f"Hub repository {repo_id}{inside} holds none of {', '.join([*marks, *_OPTIONS_NAMES])}: not an ELMo "
            f"model{_hub_subfolder_hint(repo_id, hub, subfolder)}"
        )
    return folder


def _hub_subfolder_hint(repo_id: str, hub: dict[str, Any], subfolder: str) -> str:
    """``_subfolder_hint`` of the repository's ``subfolder``, from the small files that mark a model
    (``config.json``, an options file) in the folders right inside it, fetched into (or found in)
    the cache; "" where they cannot be had."""
    marks = [f"*/{mark}" for mark in ["config.json", *_OPTIONS_NAMES]]
    try:
        snapshot = _snapshot(repo_id, hub, **_hub_patterns(subfolder, marks, depth=1))
    except ModelNotFoundError:  # e.g. offline, a cache that holds the repository's other files only
        return ""
    return _subfolder_hint(snapshot / subfolder, subfolder)


def _snapshot(repo_id: str, hub: dict[str, Any], **patterns: Any) -> Path:
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    tried = f"{repo_id!r} is not a local folder, so it was looked up as a Hub repository"
    offline = _offline(hub)
    if offline and hub.get("force_download"):  # snapshot_download would give the cached copy it was asked to replace
        raise ModelNotFoundError(
            f"{tried}: force_download=True asks for a fresh download, but this is offline (HF_HUB_OFFLINE or "
            "local_files_only); drop force_download to load the cached copy, or go online"
        )
    try:
        return Path(snapshot_download(repo_id, **patterns, **hub))
    except LocalEntryNotFoundError:
        why = "offline (HF_HUB_OFFLINE or local_files_only)" if offline else "the Hub could not be reached"
        what = "it is" if hub.get("revision") is None else f"its revision {hub['revision']!r} is"
        cache = hub.get("cache_dir") or constants.HF_HUB_CACHE
        raise ModelNotFoundError(
            f"{tried}: {why} and {what} not in the local Hub cache {cache}; download it online once, or give a "
            "local folder"
        ) from None
    except (RepositoryNotFoundError, GatedRepoError, RevisionNotFoundError) as err:
        raise ModelNotFoundError(
            f"{tried}: no such repository or revision, or no access to it ({type(err).__name__})"
        ) from None
    except HfHubHTTPError as err:
        raise ModelNotFoundError(f"{tried}: the Hub answered {str(err).splitlines()[0]}") from None


def _offline(hub: Mapping[str, Any]) -> bool:
    """Whether the Hub is not asked (``HF_HUB_OFFLINE``, or ``from_pretrained``'s ``local_files_only``):
    files come from the local Hub cache only."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE or hub.get("local_files_only"))


def source_description(source: ModelSource) -> str:
    """A stable name for a source, for provenance records: the folder or archive for local and
    shipped models, the Hub id for Hub models."""
    return source.name if source.origin == "hub" else str(source.path.resolve())


#: The names of an options file of the original files (``original_options_file``), as glob patterns.
_OPTIONS_NAMES = ["options.json", "*_options.json"]
#: The ``.hdf5`` files beside the original files that are not the biLM's weights, as glob patterns: the
#: LM's softmax and the word embeddings dumps (hundreds of MB in a released archive), which loading never
#: reads, so a folder's are passed over (``find_original_files``), an archive's never extracted
#: (``_extract_original_files``) and a Hub repository's never fetched (``_from_hub``).
_NOT_WEIGHTS_NAMES = ["*softmax*", "*embeddings*"]


def _is_weights_name(name: str) -> bool:
    """Whether a file's base name may be the biLM's weights: an ``.hdf5`` none of ``_NOT_WEIGHTS_NAMES``."""
    return name.endswith(".hdf5") and not any(fnmatch.fnmatchcase(name, pattern) for pattern in _NOT_WEIGHTS_NAMES)


def original_options_file(folder: Path) -> Path | None:
    """The options file of a folder of the original files (``_options_name``), ``None`` when it holds none."""
    name = _options_name(
        [path.name for path in folder.iterdir() if _is_options_name(path.name) and path.is_file()], str(folder)
    )
    return None if name is None else folder / name


def _options_name(names: Sequence[str], where: str) -> str | None:
    """Which of the file names ``names`` of ``where`` (a folder, or one in an archive) is the options
    file: ``options.json`` (bilm-tf's, the NLPL archives'), or else the one ``*_options.json``, as
    AllenNLP's released files are named (``elmo_2x4096_512_2048cnn_2xhighway_options.json`` beside
    ``..._weights.hdf5``); ``None`` for neither. Several ``*_options.json`` (several models' files
    in one place) are an ``InvalidModelError`` naming ``where`` and them."""
    if _OPTIONS_NAMES[0] in names:
        return _OPTIONS_NAMES[0]
    named = sorted(name for name in names if _is_options_name(name))
    if len(named) > 1:
        raise InvalidModelError(
            f"{where} holds the options files of several models {named}: keep one model's files in a folder, or "
            "name both files (ElmoModel.from_allennlp(OPTIONS, WEIGHTS), Elmo(OPTIONS, WEIGHTS, ...), elmo convert "
            "OPTIONS WEIGHTS OUT)"
        )
    return named[0] if named else None


def find_original_files(folder: PathLike) -> tuple[Path, Path]:
    """The options file (``original_options_file``) and the single ``*.hdf5`` weight file of an
    original-format folder."""
    folder = Path(folder)
    options = original_options_file(folder)
    candidates = sorted(p for p in folder.glob("*.hdf5") if _is_weights_name(p.name))
    if options is None or not candidates:
        raise FileNotFoundError(f"{folder} holds no options.json + *.hdf5 pair")
    if len(candidates) > 1:
        preferred = [p for p in candidates if "weights" in p.name]
        if len(preferred) != 1:
            raise ValueError(f"{folder} holds several weight files {[p.name for p in candidates]}; name one")
        candidates = preferred
    return options, candidates[0]


def original_config(options_path: PathLike) -> ElmoConfig:
    """The config of a model converted from the original files: their ``options.json``, with the
    padding row of the char embedding (``n_characters`` 262) and the released models'
    whitespace-split text (``pre_tokenizer``)."""
    config = read_options(options_path)
    config.n_characters = 262
    config.pre_tokenizer = WHITESPACE
    return config


def load_allennlp(options_path: PathLike, weights_path: PathLike, model_class: type | None = None):
    """Build an ``ElmoModel`` (or ``model_class``) from the original options and weight files."""
    model_class = model_class or ElmoModel
    config = original_config(options_path)
    state = elmo_state_dict(weights_path, config)
    model = model_class(config)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith(("warm_h", "warm_c"))]
    if missing or unexpected:  # a bug in this converter, never the user's file
        raise RuntimeError(f"converter mismatch: missing {missing}, unexpected {unexpected}")
    model.eval()
    return model


def load_allennlp_with_softmax(
    model_class: type, options_path: PathLike, weights_path: PathLike, softmax_path: PathLike
):
    """``model_class`` (``ElmoForBidirectionalLM``) from the original biLM files plus a softmax dump
    (hdf5 ``softmax/W`` (V, P), ``softmax/b`` (V,), read as float32 and refused, naming the file and
    dataset, where they are another file's, do not fit the options, do not store the values their
    shapes declare (never written, or a bomb) or hold NaN or infinite values)."""
    import h5py

    config = original_config(options_path)
    try:
        with h5py.File(softmax_path, "r") as handle:
            foreign = foreign_data(handle, "softmax/W") or foreign_data(handle, "softmax/b")
            if foreign:
                raise ElmoWeightsError(f"{softmax_path}: {foreign}")
            weight_shape, bias_shape = stored_shape(handle["softmax/W"]), stored_shape(handle["softmax/b"])
            if weight_shape is None or bias_shape is None:
                raise ElmoWeightsError(
                    f"{softmax_path}: {no_shape('softmax/W' if weight_shape is None else 'softmax/b')}"
                )
            # before reading the gigabytes a header may claim
            _check_softmax_shapes(softmax_path, weight_shape, bias_shape, config)
            for name in ("softmax/W", "softmax/b"):  # before reading values the file may not hold
                unstored = unstored_values(name, handle[name])
                if unstored:
                    raise ElmoWeightsError(f"{softmax_path}: {unstored}")
            arrays = {name: np.asarray(handle[name][...], dtype=np.float32) for name in ("softmax/W", "softmax/b")}
    except FileNotFoundError:
        raise FileNotFoundError(f"softmax file not found: {softmax_path}") from None
    except (OSError, KeyError) as err:
        raise ElmoWeightsError(f"{softmax_path} holds no readable softmax/W and softmax/b: {err}") from None
    problems = [problem for name, array in arrays.items() for problem in non_finite(name, array)]
    if problems:
        raise ElmoWeightsError(f"{softmax_path}: {'; '.join(problems)}")
    weight, bias = (torch.from_numpy(arrays[name]) for name in ("softmax/W", "softmax/b"))
    state = elmo_state_dict(weights_path, config)
    config = ElmoConfig.from_dict({**config.to_dict(), "vocab_size": weight.shape[0], "softmax": "full"})
    model = model_class(config)
    missing, unexpected = model.elmo.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith(("warm_h", "warm_c"))]
    if missing or unexpected:
        raise RuntimeError(f"converter mismatch: missing {missing}, unexpected {unexpected}")
    with torch.no_grad():
        model.softmax.weight.copy_(weight)
        model.softmax.bias.copy_(bias)
    return model.eval()


def _check_softmax_shapes(
    softmax_path: PathLike, weight: tuple[int, ...], bias: tuple[int, ...], config: ElmoConfig
) -> None:
    """Refuse a softmax whose ``softmax/W`` (V, P) and ``softmax/b`` (V,) shapes do not fit the
    options' ``projection_dim``, or whose V is outside ``vocab_size``'s bounds, naming the file."""
    if len(weight) != 2 or weight[1] != config.projection_dim or bias != weight[:1]:
        raise ElmoWeightsError(
            f"{softmax_path}: softmax/W {weight} and softmax/b {bias} do not fit projection_dim {config.projection_dim}"
        )
    try:
        check_size("vocab_size", weight[0], where="")
    except ValueError as err:
        raise ElmoWeightsError(f"{softmax_path}: softmax/W has {weight[0]:,} rows (words): {err}") from None


def load_original(
    source: ModelSource, model_class: type[ElmoPreTrainedModel], kwargs: dict[str, Any]
) -> PreTrainedModel | tuple[PreTrainedModel, dict[str, Any]]:
    """``model_class.from_pretrained(source, **kwargs)`` for original files: they are converted into a
    temporary folder, as ``elmo convert`` writes it, which ``model_class.from_pretrained`` then loads
    with the same ``kwargs``, so that every argument does what it does for a converted folder (config
    overrides such as ``stateful``, ``dtype`` as a ``torch.dtype``, a name or ``"auto"``, a task
    head's ``num_labels``, its fresh layers drawn from the same random state) and is refused in
    the same words. The model's ``name_or_path`` is the source's folder or archive.
    ``ElmoForBidirectionalLM`` is refused: the files hold no softmax."""
    if issubclass(model_class, ElmoForBidirectionalLM):
        raise InvalidModelError(
            f"{source.described} holds the original files, the biLM without the LM softmax that {model_class.__name__} "
            "needs: load it with ElmoModel.from_pretrained (or a task head), or the LM with its softmax with "
            "ElmoForBidirectionalLM.from_allennlp_with_softmax"
        )
    # The folder lives as long as the model: transformers may read weights from it after loading
    # (memory-mapped safetensors; weights offloaded to disk by a device_map).
    folder = tempfile.mkdtemp(prefix="hf-elmo-")
    try:
        with source.original_files() as (options, weights), torch.random.fork_rng(devices=[]):
            # fork_rng: a task head's fresh layers are drawn as from the converted folder
            load_allennlp(options, weights).save_pretrained(folder)
        try:
            loaded = model_class.from_pretrained(folder, **{k: v for k, v in kwargs.items() if k not in HUB_KWARGS})
        except (OSError, ValueError) as err:  # InvalidModelError too: name the source, not the temporary folder
            renamed = _renamed_error(err, folder, source.described)
            if renamed is None:
                raise
            raise renamed from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    model = loaded[0] if isinstance(loaded, tuple) else loaded  # (model, info) with output_loading_info
    files = _ConvertedFiles(folder)
    for module in model.modules():  # a part kept alone (a task head's biLM) keeps the folder too
        module._converted_files = files
    model.name_or_path = model.config.name_or_path = str(source.path)
    return loaded


class _ConvertedFiles:
    """The temporary folder of a model loaded from original files, deleted when the last module
    that holds this object is gone."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        weakref.finalize(self, shutil.rmtree, folder, True)


def _renamed_error(err: Exception, folder: str, name: str) -> Exception | None:
    """``err`` of the same type with ``folder`` replaced by ``name`` in its message; ``None`` where
    the message does not name ``folder`` or the type takes no single message."""
    message = str(err)
    if folder not in message:
        return None
    try:
        return type(err)(message.replace(folder, name))
    except Exception:  # an exception type that takes other arguments
        return None


def converted_config(options_path: PathLike) -> ElmoConfig:
    """The ``config.json`` that converting the original files writes (``original_config`` with what
    ``save_pretrained`` adds: ``architectures``, ``dtype``, ``auto_map``), without reading their
    weights: the model is built on the meta device and saved without its state."""
    with torch.device("meta"):
        model = ElmoModel(original_config(options_path))
    with tempfile.TemporaryDirectory(prefix="hf-elmo-") as folder:
        model.save_pretrained(folder, state_dict={})
        return ElmoConfig.from_json_file(Path(folder) / "config.json")


def load_bilm(name_or_path: PathLike):
    """``(ElmoModel, ModelSource)``: the biLM (float32, eval mode) of any model name; an LM
    folder's softmax and a task model's head are left out, without transformers' load report
    calling their weights unexpected. What every ``elmo`` command uses for its model argument."""
    source = resolve_model(name_or_path)
    with quiet_records("transformers.modeling_utils"):  # weights that do not fit are errors still
        model = ElmoModel.from_pretrained(source.path)
    return model.eval(), source


def model_tokenizer(model: PreTrainedModel, **settings: Any) -> ElmoTokenizer:
    """The tokenizer of the folder ``model`` was loaded from (``ElmoTokenizer.from_pretrained``: the
    saved tokenizer, else the pre-tokenizer its ``config.json`` records), or, for a model not loaded
    from a folder (original files, a model built in memory), one for its width that splits raw text
    as ``config.pre_tokenizer`` says (whitespace where it says nothing: the released models').
    ``settings`` (e.g. ``max_token_chars``) replace the saved ones."""
    folder = Path(model.name_or_path) if model.name_or_path else None
    if folder is not None and (folder / "config.json").is_file():
        return ElmoTokenizer.from_pretrained(folder, **settings)
    settings.setdefault("pre_tokenizer", model.config.pre_tokenizer or WHITESPACE)
    return ElmoTokenizer(max_characters_per_token=model.config.max_characters_per_token, **settings)


def _sha256(path: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def convert_to_folder(
    options_path: PathLike, weights_path: PathLike, out_dir: PathLike, overwrite: bool = False
) -> Path:
    """Convert original files into a ``save_pretrained`` folder with tokenizer and model card.

    The folder is built beside ``out_dir`` and renamed into place only when complete
    (``fileio.build_aside``), so a failed conversion leaves nothing behind; an output folder
    that is a file or holds an input file is refused, even with ``overwrite``.
    """
    from .model_card import write_model_card

    inputs = (options_path, weights_path)
    check_output_folder(out_dir, overwrite=overwrite, inputs=inputs)
    model = load_allennlp(options_path, weights_path)
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    with build_aside(out_dir, overwrite=overwrite, inputs=inputs, expected_bytes=weight_bytes) as staging:
        model.save_pretrained(staging)
        model_tokenizer(model).save_pretrained(staging)
        cfg = model.config
        write_model_card(
            staging,
            title=f"ELMo {cfg.n_layers}x{cfg.lstm_dim}_{cfg.projection_dim} (converted)",
            description=(
                "Converted from the original AllenNLP / bilm-tf files with `elmo convert`; outputs "
                "equal the original implementation's (see the hf_elmo parity tests)."
            ),
            provenance={
                "options file": f"{Path(options_path).name} (sha256 {_sha256(Path(options_path))})",
                "weight file": f"{Path(weights_path).name} (sha256 {_sha256(Path(weights_path))})",
            },
        )
    return Path(out_dir)


class PackageLoader:
    """The hook through which the model and tokenizer classes reach this module (see the module
    docstring): each method takes the calling class, so that subclasses and remote-code copies
    of ``ElmoModel`` are built as themselves."""

    @staticmethod
    def resolve(
        model_class: type[ElmoPreTrainedModel], name_or_path: PathLike, kwargs: dict[str, Any], subfolder: str = ""
    ) -> PreTrainedModel | tuple[PreTrainedModel, dict[str, Any]] | Path:
        """What ``model_class.from_pretrained(name_or_path, subfolder=subfolder, **kwargs)`` loads:
        the local folder (or Hub snapshot's, its ``subfolder``) for transformers to load without a
        ``subfolder``, its weight shapes checked against its config first (``check_weight_shapes``),
        or, for original files, what ``from_pretrained`` returns (the model, with its loading info
        if asked), converted and loaded with ``kwargs`` (``load_original``)."""
        source = resolve_model(name_or_path, kwargs.get("variant"), subfolder, **_hub_arguments(kwargs))
        if source.format == "original":
            return load_original(source, model_class, kwargs)
        if "config" not in kwargs:  # else the model is built from another config than the file's
            check_weight_shapes(source, model_class, {name: kwargs[name] for name in FIELD_CHECKS if name in kwargs})
        return source.path

    @staticmethod
    def from_allennlp(model_class: type, options_path: PathLike, weights_path: PathLike):
        """``model_class.from_allennlp``: ``load_allennlp`` into ``model_class``."""
        return load_allennlp(options_path, weights_path, model_class=model_class)

    @staticmethod
    def from_allennlp_with_softmax(
        model_class: type, options_path: PathLike, weights_path: PathLike, softmax_path: PathLike
    ):
        """``model_class.from_allennlp_with_softmax``: ``load_allennlp_with_softmax``."""
        return load_allennlp_with_softmax(model_class, options_path, weights_path, softmax_path)

    @staticmethod
    def tokenizer_source(
        tokenizer_class: type[ElmoTokenizer], name_or_path: Any, kwargs: dict[str, Any], subfolder: str = ""
    ) -> Any:
        """What ``tokenizer_class.from_pretrained(name_or_path, subfolder=subfolder, **kwargs)``
        loads: a folder or Hub id for transformers to load without a ``subfolder``
        (``files_source``), or, for the original files, the tokenizer itself: the released models'
        whitespace tokenizer at their width, saved into a temporary folder as ``elmo convert`` saves
        it and loaded from there with ``kwargs``, so that they do what they do for a converted
        folder. Its ``name_or_path`` is ``name_or_path``."""
        config = files_source(name_or_path, TOKENIZER_CONFIG, "config.json", hub=kwargs, subfolder=subfolder)
        if not isinstance(config, ElmoConfig):
            return config  # a folder
        with tempfile.TemporaryDirectory(prefix="hf-elmo-") as folder:
            tokenizer_class(
                max_characters_per_token=config.max_characters_per_token,
                pre_tokenizer=config.pre_tokenizer or WHITESPACE,
            ).save_pretrained(folder)
            tokenizer = tokenizer_class.from_pretrained(
                folder, **{k: v for k, v in kwargs.items() if k not in HUB_KWARGS}
            )
        tokenizer.name_or_path = tokenizer.init_kwargs["name_or_path"] = os.fspath(name_or_path)
        return tokenizer

    @staticmethod
    def config_source(name_or_path: Any, hub: Mapping[str, Any], subfolder: str = "") -> Any:
        """What ``ElmoConfig.from_pretrained(name_or_path, subfolder=subfolder)`` reads: a folder or
        ``.json`` file for transformers to read without a ``subfolder`` (``files_source``), or, for
        the original files, the config of the folder they convert to (``converted_config``)."""
        if isinstance(name_or_path, (str, os.PathLike)) and Path(name_or_path).suffix == ".json" and not subfolder:
            return name_or_path  # a config file named directly
        return files_source(name_or_path, "config.json", hub=hub, subfolder=subfolder)


def files_source(name_or_path: Any, *files: str, hub: Mapping[str, Any], subfolder: str = "") -> Any:
    """Where to read some of a model's files (its config, its tokenizer), not the whole model: a
    local folder that holds one of ``files`` (a config or tokenizer saved alone has no weights,
    which ``resolve_model`` asks for), or those files of a Hub repository fetched into (or found
    in) the cache without its weights, for transformers to read; for anything else, what
    ``resolve_model`` finds: a shipped model's folder; for the original files (in a folder, an
    archive or a Hub repository) the config of the folder they convert to (``converted_config``);
    or its one-line error (no such model or subfolder, a Hub repository neither online nor in the
    cache, an ``elmo export`` folder, a spaCy pipeline, an ELMoForManyLangs model, a folder of no model). ``hub``:
    ``from_pretrained``'s keyword arguments, of which the Hub ones (``HUB_KWARGS``) are used;
    ``subfolder``: ``from_pretrained``'s, the folder inside any of these that holds the files
    (``_in_subfolder``), which is what is returned."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        return name_or_path
    name = os.fspath(name_or_path)
    path = Path(name).expanduser()
    source: Any = name_or_path
    if not name.startswith(SHIPPED_PREFIX) and not path.exists() and _OWNER_NAME.match(name):
        # transformers would retry an unreachable Hub for minutes, then give the tokenizer's defaults
        source = path = _hub_probe(name, _hub_arguments(hub), files, ["*.json"], subfolder)
        if not any((path / file).is_file() for file in files):  # the original files
            return converted_config(original_options_file(path) or path / "options.json")
    elif subfolder:  # a folder's subfolder; resolve_model names one that is not there
        source = path = path / subfolder
    if any((path / file).is_file() for file in files):
        _refuse_elmoformanylangs(path)
        return source
    found = resolve_model(name, subfolder=subfolder)
    if found.format == "transformers":
        return found.path
    with found.original_options() as options:
        return converted_config(options)


PACKAGE_LOADER = PackageLoader()
ElmoPreTrainedModel.package_loader = PACKAGE_LOADER
ElmoTokenizer.package_loader = PACKAGE_LOADER
ElmoConfig.package_loader = PACKAGE_LOADER
