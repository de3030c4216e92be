"""Raw text split into words by the rule the model's corpus was tokenised with (``split_words``:
whitespace, or spaCy's rules for a language, imported only then), and that rule's name checked
(``check_pre_tokenizer``)."""

from __future__ import annotations

import functools
import re
from typing import Any

from .char_ids import utf8_of
from .configuration_elmo import PRE_TOKENIZER_FORMS, SPACY_PREFIX, WHITESPACE, pre_tokenizer_name
from .messages import described, quoted


def check_pre_tokenizer(name: str, *, check_language: bool = False, what: str = "pre_tokenizer") -> str:
    """``name`` in its saved form: ``"whitespace"`` or ``"spacy:LANG"`` (``"spacy"`` is
    ``"spacy:en"``); anything else is a ``ValueError`` naming it as ``what`` (``elmo pretrain``'s
    ``--pre-tokenizer``), a text quoted as every refused option value is (``got 'moses'``; was: ``got the str
    'moses'``, named ``pre_tokenizer`` after ``elmo pretrain --pre-tokenizer``). With ``check_language`` (what a run
    that will save the tokenizer asks), also a LANG that spaCy has no rules for, when spaCy is
    installed (it is imported only then)."""
    saved = pre_tokenizer_name(name)
    if saved is None:
        got = quoted(name) if isinstance(name, str) else described(name)
        raise ValueError(f"{what} must be {PRE_TOKENIZER_FORMS}, got {got}")
    name = saved
    if check_language and name != WHITESPACE:
        try:
            import spacy
        except ImportError:  # the tokenizer that uses it says what to install
            return name
        _check_spacy_language(spacy, name[len(SPACY_PREFIX) :], what)
    return name


def _check_spacy_language(spacy: Any, language: str, what: str) -> None:
    """A ``ValueError`` naming ``language`` (of ``what``) when spaCy has no rules for it."""
    try:
        spacy.util.get_lang_class(language)
    except ImportError:
        raise ValueError(
            f"{what} 'spacy:{language}': spaCy has no language {language!r}; use one of its language "
            "codes (e.g. 'spacy:en', 'spacy:de') or 'whitespace'"
        ) from None


@functools.cache
def _spacy_tokenizer(language: str) -> Any:
    """spaCy's rule-based tokenizer for ``language`` (``spacy.blank(language).tokenizer``), imported
    only when a tokenizer asks for it: this file is also run as remote code without spaCy."""
    try:
        import spacy
    except ImportError:
        raise ImportError(
            f"this tokenizer splits raw text with spaCy's '{language}' rules (pre_tokenizer='spacy:{language}'), "
            "but spaCy is not installed: pip install 'spacy>=3.8,<3.9', or pass pre-split words with "
            "is_split_into_words=True"
        ) from None
    _check_spacy_language(spacy, language, "pre_tokenizer")
    return spacy.blank(language).tokenizer


def split_words(text: str, pre_tokenizer: str = WHITESPACE) -> tuple[list[str], list[tuple[int, int]]]:
    """The words of raw ``text`` and their character spans ``(start, end)``.

    ``"whitespace"`` splits as ``str.split()`` does; ``"spacy:LANG"`` uses spaCy's rules for LANG
    (``spacy.blank(LANG)``) and drops whitespace tokens, as the shipped model's corpus was made.
    """
    if pre_tokenizer == WHITESPACE:
        matches = list(re.finditer(r"\S+", text))
        return [m.group() for m in matches], [m.span() for m in matches]
    utf8_of(text, "text")  # spaCy's own error for it is a bare UnicodeEncodeError
    # spaCy takes an exact str: a subclass (numpy.str_, an item of np.array(texts)) gets a TypeError there
    doc = _spacy_tokenizer(pre_tokenizer[len(SPACY_PREFIX) :])(str(text))
    tokens = [t for t in doc if not t.is_space]
    return [t.text for t in tokens], [(t.idx, t.idx + len(t.text)) for t in tokens]
