"""The registered loader that fetches biLM weights at ``[initialize]``, and how to tell a loader of
a given model from the shipped-model fallback that ``name_or_path = null`` gives."""

import json
from collections.abc import Callable

from spacy.util import logger, registry

from hf_elmo import ElmoModel
from hf_elmo.loading import ModelSource, resolve_model
from hf_elmo.modeling_elmo import check_config_reads_char_ids, check_reads_char_ids

#: What the word-embedding baseline's refusal names (``check_reads_char_ids``).
LOADER = "spacy-elmo's ElmoLoader"


#: The registered name of the loader.
LOADER_NAME = "spacy-elmo.ElmoLoader.v1"


@registry.misc(LOADER_NAME)
def elmo_loader_v1(name_or_path: str | None = None) -> Callable[[], ElmoModel]:
    """A callable that loads the biLM (float32) when called.

    ``name_or_path`` is anything ``ElmoModel.from_pretrained`` accepts (``hf_elmo.loading``): a
    converted folder (``config.json`` + ``model.safetensors``), a folder or zip archive of the
    original ``options.json`` + ``*.hdf5``, a Hub id ``owner/name``, or a shipped model name such
    as ``hf-elmo:elmo-2x1024-en``. Without it (``null``, or ``--paths.elmo`` left out) it loads the
    model shipped with the package. Nothing is read until the pipeline is initialised, so a
    trained pipeline loads without it. A model that cannot be found or loaded raises the
    resolver's one-line ``OSError`` (or a config's ``ValueError``) naming it; a trained spaCy
    pipeline's folder, one naming the biLM folder inside it (``hf_elmo.loading``); a word-embedding
    baseline (``elmo pretrain --token-embedding word``, no char CNN), a one-line ``ValueError``.
    """
    if not name_or_path:
        return load_shipped_model

    def load() -> ElmoModel:
        model = ElmoModel.from_pretrained(str(name_or_path))
        check_reads_char_ids(model, LOADER)
        return model

    return load


def find_model(name_or_path: str) -> ModelSource:
    """Where the model is that ``elmo_loader_v1(name_or_path)`` loads, found without loading it:
    ``hf_elmo.loading.resolve_model``, which loading it goes through (a Hub model is fetched into
    the cache, where loading finds it), with the same one-line errors (``OSError``, or a config's
    ``ValueError``; a spaCy pipeline's folder named with the biLM folder inside it; a word-embedding
    baseline, read from its ``config.json``). For a script that builds pipelines on the model after
    other work, to refuse a bad name first (scripts/bench_spacy.py ``--elmo``)."""
    source = resolve_model(name_or_path)
    if source.config is not None:  # original files hold a char CNN always
        check_config_reads_char_ids(source.config, source.described, LOADER)
    return source


def loader_name_advice(name_or_path: str) -> str:
    """What a ``loader`` setting given a biLM's name or folder ``name_or_path`` (a str, in place of a loader's block) is
    told: the block that loads it."""
    return (
        f"must be a loader, got the name or folder {name_or_path!r}: give it as the name_or_path of a loader, "
        f'{{"@misc": "{LOADER_NAME}", "name_or_path": {json.dumps(name_or_path)}}} (in a config file: the block '
        f'[...loader] with @misc = "{LOADER_NAME}" and name_or_path = ...)'
    )


def names_a_model(loader: Callable[[], ElmoModel] | None) -> bool:
    """Whether ``loader`` loads a model the config gave: not ``None`` (no loader) nor
    ``load_shipped_model`` (what ``elmo_loader_v1`` returns for ``name_or_path = null``)."""
    return loader is not None and loader is not load_shipped_model


def load_shipped_model() -> ElmoModel:
    """The biLM shipped with the package, in float32 (its LM head is dropped).

    Says so on spaCy's logger at warning level, which ``spacy train`` shows: the shipped model
    saw far less text than the released ELMo models, and a user who meant to give one should
    notice.
    """
    from hf_elmo.pretrained import DEFAULT_MODEL_NAME, DEFAULT_MODEL_SUMMARY

    logger.warning(
        "spacy-elmo: no ELMo model given: using the shipped model %s (%s; give %s a name_or_path, e.g. "
        "--paths.elmo, for another)",
        DEFAULT_MODEL_NAME,
        DEFAULT_MODEL_SUMMARY,
        LOADER_NAME,
    )
    return ElmoModel.from_pretrained(DEFAULT_MODEL_NAME)
