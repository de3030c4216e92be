"""The ``ElmoTokenizer``'s settings: where ``from_pretrained`` reads them (a model folder's tokenizer
files, else its ``config.json``: ``settings_from_model_files``), and what its ``__init__`` and
``from_pretrained`` refuse among them, each in one line: a misspelt setting of its own
(``refuse_misspelt_settings``), another tokenizer's that changes the text (``refuse_foreign_settings``),
a special token (``refuse_special_tokens``, ``without_special_tokens``: ELMo has none), a
``max_token_chars`` that is no positive integer (``token_limit``).

This file imports only transformers and its siblings (the configuration, ``messages``), so that a
saved folder carries it with ``tokenization_elmo.py`` for ``trust_remote_code=True``.
"""

from __future__ import annotations

import codecs
import difflib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, NamedTuple

from transformers import PreTrainedTokenizer
from transformers.utils import CONFIG_NAME, cached_file
from transformers.utils import logging as hf_logging

from .char_ids import N_CHAR_IDS
from .configuration_elmo import HUB_KWARGS, ElmoConfig, check_integer, json_of
from .messages import another_model, described

_logger = hf_logging.get_logger(__name__)
NOTHING_TO_ADD = (
    "ElmoTokenizer has no token vocabulary to add to: every word, new ones included, is read from its characters "
    f"(the {N_CHAR_IDS} fixed char ids), and padding is built in (pad_token_id 0); leave the tokenizer as it is"
)
#: What ``tokenizer.save_pretrained`` writes (transformers' name for it).
TOKENIZER_CONFIG = "tokenizer_config.json"
#: The tokenizer's files that transformers reads (as UTF-8, failing on a byte-order mark).
TOKENIZER_JSON_FILES = (TOKENIZER_CONFIG, "special_tokens_map.json", "added_tokens.json")
#: ``from_pretrained`` arguments that say where a folder's or Hub repository's files are.
FILE_KWARGS = (*HUB_KWARGS, "proxies", "subfolder")


def token_limit(max_token_chars: Any) -> int | None:
    """``max_token_chars`` checked: a positive integer (``check_integer``'s rule), or ``None`` (no
    limit: long tokens are truncated)."""
    if max_token_chars is None:
        return None
    return check_integer("max_token_chars", max_token_chars, 1, where="", note=", or None (null) for no limit")


def _saved_file(name_or_path: Any, filename: str, kwargs: Mapping[str, Any]) -> str | None:
    """The path of ``filename`` in a model folder or Hub repository (``from_pretrained``'s file
    arguments in ``kwargs``), or ``None`` where it has none."""
    try:
        return cached_file(
            name_or_path,
            filename,
            _raise_exceptions_for_missing_entries=False,
            _raise_exceptions_for_connection_errors=False,
            **{key: kwargs[key] for key in FILE_KWARGS if key in kwargs},
        )
    except OSError:
        return None


class _SavedJson(NamedTuple):
    """A settings file of a model folder, read by ``_saved_json``."""

    path: str
    contents: dict[str, Any]
    marked: bool  # it opens with the UTF-8 byte-order mark


def _saved_json(name_or_path: Any, filename: str, kwargs: Mapping[str, Any]) -> _SavedJson | None:
    """``filename`` in a model folder or Hub repository, or ``None`` where it has none; a ``ValueError``
    naming it where it is not a JSON object (cut short, not UTF-8, a list), which transformers would
    report without naming the file, or as a ``TypeError``."""
    path = _saved_file(name_or_path, filename, kwargs)
    if path is None:
        return None
    try:
        text = Path(path).read_bytes()
    except OSError:
        return None
    try:
        contents = json_of(text)
    except ValueError as err:  # invalid JSON or UTF-8
        raise ValueError(f"{path} is not a JSON object of settings ({err}){RESTORE_SETTINGS}") from None
    if not isinstance(contents, dict):
        raise ValueError(f"{path} is not a JSON object of settings (it holds {described(contents)}){RESTORE_SETTINGS}")
    return _SavedJson(path, contents, text.startswith(codecs.BOM_UTF8))


#: What to do with a damaged settings file of a model folder (``_saved_json``).
RESTORE_SETTINGS = "; restore it, or write the folder again with save_pretrained"


def settings_from_model_files(name_or_path: Any, kwargs: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The tokenizer settings of a model folder that holds no tokenizer files: its ``config.json``'s
    width and ``pre_tokenizer`` (``ElmoTokenizer.from_pretrained``); and the path of its ``tokenizer_config.json``
    where that opens with the UTF-8 byte-order mark (which transformers fails on), else ``None``. A folder of
    another model is a ``ValueError``; one whose pre-tokenizer is not known gets a warning; a ``subfolder``
    (which ``from_pretrained`` leaves to transformers) that holds neither file a ``FileNotFoundError``."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        return {}, None
    config = _saved_json(name_or_path, CONFIG_NAME, kwargs)
    if config is not None and config.contents.get("model_type", ElmoConfig.model_type) != ElmoConfig.model_type:
        raise ValueError(
            f"{config.path} is the config of {another_model(config.contents['model_type'])}, not an ELMo one: load its tokenizer "
            "with AutoTokenizer, or give ElmoTokenizer an ELMo model's folder"
        )
    tokenizer_config = _saved_json(name_or_path, TOKENIZER_CONFIG, kwargs)
    if tokenizer_config is not None:
        other = tokenizer_config.contents.get("tokenizer_class")
        if other not in (None, "ElmoTokenizer"):
            raise ValueError(
                f"{tokenizer_config.path} is the config of the tokenizer {other!r}, not of an ElmoTokenizer: load it "
                "with AutoTokenizer, or give ElmoTokenizer an ELMo model's folder"
            )
        return {}, tokenizer_config.path if tokenizer_config.marked else None
    if config is None and kwargs.get("subfolder"):  # else transformers builds the default tokenizer, of no model
        raise FileNotFoundError(
            f"found neither {TOKENIZER_CONFIG} nor {CONFIG_NAME} in subfolder {kwargs['subfolder']!r} of "
            f"{os.fspath(name_or_path)}: give the subfolder that holds the model's or its tokenizer's files"
        )
    if config is None:
        return {}, None
    settings: dict[str, Any] = {"max_characters_per_token": config.contents.get("max_characters_per_token", 50)}
    if config.contents.get("pre_tokenizer") is not None:
        settings["pre_tokenizer"] = config.contents["pre_tokenizer"]
    elif "pre_tokenizer" not in kwargs:
        _logger.warning_once(
            f"{name_or_path} holds no tokenizer files and its config.json records no pre_tokenizer: raw text is split "
            "at whitespace, which may not be how the model's training text was split. Save the tokenizer with the "
            "model (tokenizer.save_pretrained), or pass pre_tokenizer='whitespace' or 'spacy:LANG'"
        )
    return settings, None


#: The tokenizer's own settings (``ElmoTokenizer.__init__``'s), which transformers would keep, unused,
#: under any other name: a misspelling of one is refused (``refuse_misspelt_settings``).
_OWN_SETTINGS = ("max_characters_per_token", "max_token_chars", "pre_tokenizer")


def refuse_misspelt_settings(kwargs: Mapping[str, Any]) -> None:
    """Refuse, in one line, a keyword (from ``from_pretrained`` or ``tokenizer_config.json``) that is a
    misspelling of one of ``_OWN_SETTINGS``: transformers keeps any keyword, so ``pre_tokenizers="whitespace"``
    would split text by the folder's rule instead, silently. Only near-equal names are taken for one
    (``difflib``, ratio 0.8: transformers' own keywords, ``tokenizer_file`` or ``mask_token``, are 0.67
    at most)."""
    for name in kwargs:
        meant = difflib.get_close_matches(name, _OWN_SETTINGS, n=1, cutoff=0.8)
        if meant and name not in _OWN_SETTINGS:
            raise TypeError(
                f"ElmoTokenizer has no setting {name!r}: did you mean {meant[0]!r}? (its settings: "
                f"{', '.join(_OWN_SETTINGS)})"
            )


#: Other tokenizers' settings that change the text (BERT's, and ``tokenizers``' ``lowercase``), which ELMo,
#: reading text as written, does not have: one given as true is refused (``refuse_foreign_settings``).
_FOREIGN_SETTINGS = ("do_lower_case", "lowercase", "strip_accents", "tokenize_chinese_chars")


def refuse_foreign_settings(kwargs: Mapping[str, Any]) -> None:
    """Refuse, in one line, another tokenizer's setting that changes the text (``_FOREIGN_SETTINGS``) given
    as true (from ``from_pretrained`` or ``tokenizer_config.json``): transformers keeps any keyword, unused,
    so ``do_lower_case=True`` would give the model the text's capitals, silently. Given as false (or
    ``None``) it asks for what ELMo does, and is let be."""
    for name in _FOREIGN_SETTINGS:
        if kwargs.get(name):
            raise TypeError(
                f"ElmoTokenizer has no setting {name}={kwargs[name]!r}: ELMo reads text as written (no "
                "lower-casing, accent stripping or splitting of Chinese characters); change the text before the "
                f"tokenizer if the model was trained on such text, or drop {name}"
            )


#: The settings that give transformers' tokenizers more special tokens than ``SPECIAL_TOKENS_ATTRIBUTES`` name (a
#: list, or a map to them), which ``from_pretrained`` also reads from an older folder's tokenizer files.
_SPECIAL_TOKEN_LISTS = (
    "extra_special_tokens",
    "additional_special_tokens",
    "model_specific_special_tokens",
    "added_tokens_decoder",
)
#: The folder ``ElmoTokenizer.from_pretrained`` is loading while it builds the tokenizer of the folder's settings
#: (``without_special_tokens``), else ``None``.
_LOADING: ContextVar[str | None] = ContextVar("hf_elmo_tokenizer_loading", default=None)


@contextmanager
def loading_settings_of(name_or_path: Any) -> Iterator[None]:
    """Within it, ``ElmoTokenizer.__init__`` builds the tokenizer of the settings of the folder ``name_or_path``
    (``_LOADING``; an outer one's folder is kept: the one the user named)."""
    token = _LOADING.set(_LOADING.get() or str(name_or_path))
    try:
        yield
    finally:
        _LOADING.reset(token)


def special_token_refusal(key: str, value: Any) -> ValueError:
    """The one-line refusal of a special token given to the tokenizer (``key`` = ``value``): ELMo has none."""
    return ValueError(f"{key} = {described(value)}: {NOTHING_TO_ADD}")


def _special_tokens_in(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings among ``settings`` that give the tokenizer a special token (``pad_token``,
    ``extra_special_tokens``, ``_SPECIAL_TOKEN_LISTS``); ``None`` and empty ones give none."""
    return {
        key: value
        for key, value in settings.items()
        if (key in PreTrainedTokenizer.SPECIAL_TOKENS_ATTRIBUTES and value is not None)
        or (key in _SPECIAL_TOKEN_LISTS and value)
    }


def refuse_special_tokens(settings: Mapping[str, Any]) -> None:
    """Refuse, in one line, a special token given in code (``_special_tokens_in``), as setting one is."""
    for key, value in _special_tokens_in(settings).items():
        raise special_token_refusal(key, value)


def _token_names(value: Any) -> Any:
    """The text of a saved special token (a str or an ``AddedToken``), or of each in a list or map of them."""
    if isinstance(value, Mapping):
        return [str(token) for token in value.values()]
    if isinstance(value, (list, tuple)):
        return [str(token) for token in value]
    return str(value)


def without_special_tokens(settings: dict[str, Any]) -> dict[str, Any]:
    """``ElmoTokenizer.__init__``'s ``settings`` without those that give it a special token: ELMo has none (every
    word is read from its characters, padding is built in), and transformers would make each a row of char ids in
    ``all_special_ids``. One given in code is refused in one line, as setting one is; one that a folder's
    tokenizer files saved (``from_pretrained``, ``_LOADING``) is dropped with a one-line warning naming it, so
    that the folder loads as it did."""
    folder = _LOADING.get()
    if folder is None:
        refuse_special_tokens(settings)
        return settings
    given = _special_tokens_in(settings)
    if given:
        tokens = ", ".join(f"{key} = {described(_token_names(value))}" for key, value in given.items())
        _logger.warning(
            f"{folder}: the special tokens its tokenizer files saved are dropped ({tokens}): ElmoTokenizer has "
            "none (every word is read from its characters, and padding is built in, pad_token_id 0); save the "
            "tokenizer again (tokenizer.save_pretrained) to leave them out of the folder"
        )
    return {key: value for key, value in settings.items() if key not in given}
