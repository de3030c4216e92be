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
local folder or a Hub repository (``in_subfolder``); a ``.zip`` archive has none.

Anything else fails at once with a one-line ``ModelNotFoundError`` that names it and says what
was tried: only a name of the form ``owner/name`` ever waits for the network.

Around the resolver, one module per part, which this module imports (they never import it):
``hf_elmo.original_files`` (the original files' names; models built from them: ``load_allennlp``,
with the LM softmax ``load_allennlp_with_softmax``, importable from here too), ``hf_elmo.archives``
(a ``.zip`` archive's files, extracted), ``hf_elmo.hub`` (a Hub repository's files, fetched into
the cache) and ``hf_elmo.subfolders`` (``from_pretrained``'s ``subfolder``; ``ModelNotFoundError``).
This module loads original files as a model (``load_original``) and writes converted folders
(``convert_to_folder``, ``elmo convert``).

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
import os
import re
import shutil
import tempfile
import weakref
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from transformers import PreTrainedModel
from transformers.utils import CONFIG_NAME, SAFE_WEIGHTS_INDEX_NAME, SAFE_WEIGHTS_NAME

from . import archives
from .configuration_elmo import FIELD_CHECKS, HUB_KWARGS, WHITESPACE, ElmoConfig, read_json_file
from .convert import ELMOFORMANYLANGS_MODEL, is_elmoformanylangs_config
from .devices import check_device_map
from .elmo_weights import InvalidModelError, not_float_weight, weights_file
from .fileio import PathLike
from .hub import fetch_snapshot, hub_arguments, hub_patterns, hub_probe, push_said
from .logs import quiet_records
from .messages import error_reason, some_of
from .modeling_elmo import ElmoModel, ElmoPreTrainedModel, check_loaded_weights
from .modeling_lm import ElmoForBidirectionalLM
from .original_files import (
    NOT_WEIGHTS_NAMES,
    OPTIONS_NAMES,
    converted_config,
    find_original_files,
    is_weights_name,
    load_allennlp,
    load_allennlp_with_softmax,
    original_options_file,
)
from .output_folders import (
    CHECKPOINT_FILE,
    EXPORT_MANIFEST,
    SETTINGS_FILE,
    build_aside,
    check_output_folder,
    moved_aside,
)
from .pretrained import RETIRED, SHIPPED, SHIPPED_PREFIX
from .subfolders import ModelNotFoundError, in_subfolder, subfolder_hint
from .tokenization_elmo import ElmoTokenizer
from .tokenizer_settings import TOKENIZER_CONFIG

#: What a ``save_pretrained`` folder needs from the Hub (weights, config, tokenizer, vocab, card, code).
_TRANSFORMERS_FILES = ["*.json", "*.safetensors", "*.txt", "*.md", "*.py"]
_OWNER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


#: Where spacy_elmo's ``elmo`` component saves its biLM (a ``save_pretrained`` folder) inside a
#: pipeline: ``<pipeline>/<component>/bilm``; a pipeline's folder given as a model names it.
BILM_FOLDER = "bilm"

#: What an ``elmo`` component saved before its weights were loaded writes instead: a note that it
#: has none (``<pipeline>/<component>/no-bilm.txt``).
NO_BILM_FILE = "no-bilm.txt"


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
            assert options is not None  # resolve_model found it, or archives.extract_original_files wrote it
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
                yield archives.extract_original_files(self.path, Path(folder), weights)
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
    repository that holds the model (``in_subfolder``); the source's ``path`` is that folder.
    ``hub_kwargs`` are ``from_pretrained``'s Hub arguments (``HUB_KWARGS``); others are ignored.
    Raises ``ModelNotFoundError`` (nothing found, no such subfolder), ``InvalidModelError`` (found,
    not loadable) or ``ElmoConfigError`` (a bad field in its ``config.json``).
    """
    name = _named(name_or_path)
    path = Path(name).expanduser()
    if name.startswith(SHIPPED_PREFIX):
        source = _shipped(name, variant, subfolder)
    elif path.exists():
        source = _local(name, in_subfolder(path, subfolder, name), "local", variant, subfolder)
    elif _OWNER_NAME.match(name):
        with _suggesting_shipped(name):
            source = _from_hub(name, hub_arguments(hub_kwargs), variant, subfolder)
    else:
        raise ModelNotFoundError(
            f"no model {name!r}: no such local file or folder, not a shipped model ({_shipped_names()}), "
            f"and not a Hub id (owner/name){_shipped_guess(name)}{_moved_aside_hint(path)}"
        )
    return replace(source, subfolder=subfolder)


def _shipped_guess(name: str) -> str:
    """``"; did you mean hf-elmo:NAME?"`` where ``name`` is a shipped model's name without its prefix
    (``NAME``), with ``/`` for its ``:`` (``hf-elmo/NAME``, a Hub id) or with its prefix, in other
    capitals (``elmo-2x1024-EN``), for the error that no such model was found; a retired model's
    name, so given, guesses the model that replaced it; ``""`` otherwise."""
    short = name.casefold()
    for prefix in (SHIPPED_PREFIX, SHIPPED_PREFIX.replace(":", "/")):
        short = short.removeprefix(prefix)
    short = RETIRED[short][0] if short in RETIRED and short not in SHIPPED else short
    return f"; did you mean {SHIPPED_PREFIX}{short}?" if short in SHIPPED else ""


@contextmanager
def _suggesting_shipped(name: str) -> Iterator[None]:
    """Around the Hub look-up of ``name``: its ``ModelNotFoundError`` with ``_shipped_guess(name)`` added."""
    try:
        yield
    except ModelNotFoundError as err:
        guess = _shipped_guess(name)
        if not guess:
            raise
        raise ModelNotFoundError(f"{err}{guess}") from None


def _moved_aside_hint(path: Path) -> str:
    """Where the folder ``path`` is, moved aside by an ``elmo`` command killed as it swapped a new one in
    (``output_folders.moved_aside``), for ``resolve_model``'s error: ``""`` where it is not."""
    old = moved_aside(path)
    if old is None:
        return ""
    return (
        f"; a command killed as it replaced {path} left the earlier one at {old}: run that command again (it puts "
        f"the folder back first), or rename {old.name} to {path.name}"
    )


def _named(name_or_path: PathLike) -> str:
    """``name_or_path`` as a str; an empty (or blank) one is a ``ModelNotFoundError``, not the current folder."""
    name = os.fspath(name_or_path)
    if not name.strip():
        raise ModelNotFoundError(
            f"no model named {name!r}: give a shipped model ({_shipped_names()}), a model's folder, or a Hub id "
            "(owner/name)"
        )
    return name


def _holds_a_model(folder: Path) -> bool:
    """Whether ``folder`` is a model's: its config.json, or the original options file and a weights .hdf5."""
    if (folder / CONFIG_NAME).is_file():
        return True
    return original_options_file(folder) is not None and any(is_weights_name(p.name) for p in folder.glob("*.hdf5"))


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
        raise ModelNotFoundError(
            f"no shipped model {name!r}; the package ships {_shipped_names()}{_shipped_guess(name)}"
        )
    return _local(name, in_subfolder(folder, subfolder, f"the shipped model {name!r}"), "shipped", variant, subfolder)


def _local(name: str, path: Path, origin: str, variant: str | None = None, subfolder: str = "") -> ModelSource:
    """The model in ``path``: ``name``'s folder (its ``subfolder``, which ``path`` is) or archive."""
    _refuse_a_checkpoint_folder(path)
    if path.is_file():
        if not zipfile.is_zipfile(path):
            archives.refuse_a_cut_short_zip(path)
            folder = f": give its folder, {path.parent}" if _holds_a_model(path.parent) else ""  # its config.json, say
            raise InvalidModelError(
                f"{path} is a file, but a model is a folder (config.json + model.safetensors, or options.json + "
                f"weights .hdf5) or a .zip archive of the original files{folder}"
            )
        archives.original_member_folder(path)  # fails early, naming the archive, if it holds no options file
        return ModelSource(name, path, "original", origin)
    _refuse_links_to_nothing(path)
    if (path / CONFIG_NAME).is_file():
        return _transformers_source(name, path, origin, variant)
    if _holds_a_model(path):  # the original files
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
        f"original files){subfolder_hint(path, subfolder)}"
    )


#: The kinds of file a model folder is read by: configs, weights, vocabularies (``_refuse_links_to_nothing``).
_MODEL_FILE_SUFFIXES = {".json", ".safetensors", ".hdf5", ".txt"}


def _refuse_links_to_nothing(folder: Path) -> None:
    """Raise ``InvalidModelError`` when ``folder``'s model files include symbolic links that lead to no
    file, as a copy of a Hub cache snapshot holds them (its files are relative links into the
    cache's blobs folder, which ``cp -r`` copies as links): the files would be called missing."""
    broken = sorted(
        path
        for path in folder.iterdir()
        if path.suffix in _MODEL_FILE_SUFFIXES and path.is_symlink() and not path.exists()
    )
    if broken:
        names = [f"{broken[0].name} (to {os.readlink(broken[0])})", *(path.name for path in broken[1:])]
        raise InvalidModelError(
            f"{folder} holds links that lead to no file: {some_of(names, 3)}; is it a copy of a Hub cache "
            "snapshot, whose files are links into its blobs folder? copy it again following the links (cp -rL), or "
            "load the model by its Hub id (owner/name), from the cache"
        )


def _refuse_a_spacy_pipeline(path: Path) -> None:
    """Refuse the folder of a saved spaCy pipeline (``nlp.to_disk``: a ``config.cfg``, no
    ``config.json``), naming the biLM folders of its ``elmo`` components (or saying they have none)."""
    if not (path / "config.cfg").is_file() or (path / CONFIG_NAME).is_file():
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
        config = read_json_file(folder / CONFIG_NAME)
    except (OSError, ValueError):
        return  # ElmoConfig names the problem
    if is_elmoformanylangs_config(config):
        raise InvalidModelError(f"{folder} is {ELMOFORMANYLANGS_MODEL}")


def _stored_shapes(folder: Path, variant: str | None = None) -> dict[str, tuple[int, ...]] | None:
    """The weight shapes in the header of the folder's ``model.safetensors`` (``model.VARIANT.safetensors``
    for a ``variant``; ``None`` for sharded weights, whose shards' headers are read for their dtypes
    only): a cheap read that names the file, where a corrupt or missing file (or a weight that is no
    floating-point tensor, ``_header_shapes``) would otherwise fail deep in transformers, or load
    as rounded numbers. A folder that holds the weights of other variants only is named with the
    ``variant`` to pass."""
    weights = folder / weights_file(SAFE_WEIGHTS_NAME, variant)
    if not weights.is_file():
        index = folder / weights_file(SAFE_WEIGHTS_INDEX_NAME, variant)
        if index.is_file():
            for shard in _shards(index):
                _header_shapes(shard)
            return None  # sharded: transformers checks the shards' shapes
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
    return _header_shapes(weights)


def _shards(index: Path) -> list[Path]:
    """The shard files named by a sharded folder's weight ``index`` that are there (an index or a shard
    that is not is left for transformers to name)."""
    try:
        weight_map = read_json_file(index).get("weight_map", {})
        names = sorted(set(weight_map.values()))
    except (OSError, ValueError, AttributeError, TypeError):
        return []
    return [index.parent / name for name in names if isinstance(name, str) and (index.parent / name).is_file()]


def _header_shapes(weights: Path) -> dict[str, tuple[int, ...]]:
    """The weight shapes in the header of the safetensors file ``weights``; an ``InvalidModelError``
    naming it where it does not read, or naming the weight that is not floating point (an integer or
    bool tensor), which transformers would load as rounded numbers, silently."""
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(weights), framework="pt") as handle:
            slices = {key: handle.get_slice(key) for key in handle.keys()}
            dtypes = {key: part.get_dtype() for key, part in slices.items()}
            shapes = {key: tuple(part.get_shape()) for key, part in slices.items()}
    except (SafetensorError, OSError, ValueError) as err:
        raise InvalidModelError(
            f"{weights} is not a readable safetensors file ({error_reason(err)}); re-create or re-download it"
        ) from None
    for key, dtype in dtypes.items():
        if not dtype.startswith(("F", "BF")):  # F64, F32, F16, BF16, F8_*: floating point
            raise not_float_weight(weights, key, dtype)
    return shapes


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
    config.name_or_path = source.described  # what the constructor's errors name (a task head given a word baseline)
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


def _from_hub(repo_id: str, hub: dict[str, Any], variant: str | None = None, subfolder: str = "") -> ModelSource:
    """Fetch (or find in the cache) what the repository (its ``subfolder``) needs: first the small
    files that say its format, then that format's files."""
    if (hub_probe(repo_id, hub, subfolder=subfolder) / CONFIG_NAME).is_file():
        folder = fetch_snapshot(repo_id, hub, **hub_patterns(subfolder, _TRANSFORMERS_FILES))
        return _transformers_source(repo_id, folder / subfolder, "hub", variant)
    folder = fetch_snapshot(repo_id, hub, **hub_patterns(subfolder, [*OPTIONS_NAMES, "*.hdf5"], NOT_WEIGHTS_NAMES))
    return ModelSource(repo_id, folder / subfolder, "original", "hub")


def source_description(source: ModelSource) -> str:
    """A stable name for a source, for provenance records: the folder or archive for local and
    shipped models, the Hub id for Hub models."""
    return source.name if source.origin == "hub" else str(source.path.resolve())


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


def load_bilm(name_or_path: PathLike | ModelSource) -> tuple[ElmoModel, ModelSource]:
    """``(ElmoModel, ModelSource)``: the biLM (float32, eval mode) of any model name; an LM
    folder's softmax and a task model's head are left out, without transformers' load report
    calling their weights unexpected. What every ``elmo`` command uses for its model argument.
    A ``ModelSource`` that ``resolve_model`` found already is not resolved again (``elmo demo``, which reads
    the model's tokenizer before its weights: a Hub id is looked up once)."""
    source = name_or_path if isinstance(name_or_path, ModelSource) else resolve_model(name_or_path)
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
    if folder is not None and (folder / CONFIG_NAME).is_file():
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
    (``output_folders.build_aside``), so a failed conversion leaves nothing behind; an output folder
    that is a file or holds an input file is refused, even with ``overwrite``.
    """
    from .model_card import write_model_card

    inputs = (options_path, weights_path)
    out_dir = check_output_folder(out_dir, overwrite=overwrite, inputs=inputs)
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
                "equal the original implementation's (see the hf_elmo parity tests). Its licence is the "
                "original files', which the converter cannot know: add it to this card's metadata "
                "(`license:`) before sharing the folder."
            ),
            license=None,
            provenance={
                "options file": f"{Path(options_path).name} (sha256 {_sha256(Path(options_path))})",
                "weight file": f"{Path(weights_path).name} (sha256 {_sha256(Path(weights_path))})",
            },
        )
    return out_dir


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
        check_device_map(kwargs.get("device_map"))
        source = resolve_model(name_or_path, kwargs.get("variant"), subfolder, **hub_arguments(kwargs))
        if source.format == "original":
            return load_original(source, model_class, kwargs)
        if "config" not in kwargs:  # else the model is built from another config than the file's
            check_weight_shapes(source, model_class, {name: kwargs[name] for name in FIELD_CHECKS if name in kwargs})
        return source.path

    @staticmethod
    def from_allennlp(
        model_class: type[ElmoPreTrainedModel], options_path: PathLike, weights_path: PathLike
    ) -> ElmoPreTrainedModel:
        """``model_class.from_allennlp``: ``load_allennlp`` into ``model_class``."""
        return load_allennlp(options_path, weights_path, model_class=model_class)

    @staticmethod
    def from_allennlp_with_softmax(
        model_class: type[ElmoForBidirectionalLM],
        options_path: PathLike,
        weights_path: PathLike,
        softmax_path: PathLike,
    ) -> ElmoForBidirectionalLM:
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
        config = files_source(name_or_path, TOKENIZER_CONFIG, CONFIG_NAME, hub=kwargs, subfolder=subfolder)
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
    def pushing(what: str, repo_id: str, saved: str | None = None) -> AbstractContextManager[None]:
        """Around ``what``'s push to ``repo_id`` (``push_to_hub`` of the model, config and tokenizer
        classes, and their ``save_pretrained(push_to_hub=True)``): a Hub that cannot be reached said in one
        line (``push_said``)."""
        return push_said(what, repo_id, saved)

    @staticmethod
    def carry_source_card(card_path: str, source: str | None, token: str | None) -> None:
        """Add to the card at ``card_path``, transformers' card of a model pushed to a repository without one, the
        licence, attribution and ``base_model`` of the card of ``source``, the model's ``name_or_path``
        (``hf_elmo.model_card.carry_source_card``)."""
        from .model_card import carry_source_card

        carry_source_card(Path(card_path), source, token)

    @staticmethod
    def config_source(name_or_path: Any, hub: Mapping[str, Any], subfolder: str = "") -> Any:
        """What ``ElmoConfig.from_pretrained(name_or_path, subfolder=subfolder)`` reads: a folder or
        ``.json`` file for transformers to read without a ``subfolder`` (``files_source``), or, for
        the original files, the config of the folder they convert to (``converted_config``)."""
        if isinstance(name_or_path, (str, os.PathLike)) and Path(name_or_path).suffix == ".json" and not subfolder:
            return name_or_path  # a config file named directly
        return files_source(name_or_path, CONFIG_NAME, hub=hub, subfolder=subfolder)


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
    (``in_subfolder``), which is what is returned."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        return name_or_path
    name = _named(name_or_path)
    path = Path(name).expanduser()
    source: Any = str(path) if path.exists() else name_or_path  # "~/model": the home folder's, for transformers too
    if not name.startswith(SHIPPED_PREFIX) and not path.exists() and _OWNER_NAME.match(name):
        # transformers would retry an unreachable Hub for minutes, then give the tokenizer's defaults
        with _suggesting_shipped(name):
            source = path = hub_probe(name, hub_arguments(hub), files, ["*.json"], subfolder)
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
