"""The ``ElmoTokenizer``: its input checks, and transformers' tokenizer API over ELMo's char ids
(``char_ids``: the character vocabulary, ``batch_to_ids``) and the word splitting of raw text
(``word_splitting``: ``split_words`` by the rule the model's corpus was tokenised with). Where its
settings are read from and which are refused: ``tokenizer_settings``.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, cast

import numpy as np
import torch
from transformers import BatchEncoding, PreTrainedTokenizer
from transformers.tokenization_utils_base import CharSpan, TokenSpan
from transformers.utils import CONFIG_NAME
from transformers.utils import logging as hf_logging

from .char_ids import (
    CHAR_ID_NAMES,
    DEFAULT_MAX_TOKEN_CHARS,
    N_CHAR_IDS,
    SENTENCE_END,
    SENTENCE_START,
    batch_to_ids,
    char_ids_to_token,
    checked_width,
    token_to_char_ids,
    words_of,
)
from .configuration_elmo import (
    SETTINGS_SUFFIXES,
    WHITESPACE,
    ElmoConfigError,
    UploadsNoSaveLock,
    check_saved_whole,
    config_file,
    saving_into,
)
from .messages import described, is_number, one_of
from .tokenizer_settings import (
    FILE_KWARGS,
    NOTHING_TO_ADD,
    RESTORE_SETTINGS,
    TOKENIZER_CONFIG,
    TOKENIZER_JSON_FILES,
    loading_settings_of,
    refuse_foreign_settings,
    refuse_misspelt_settings,
    refuse_special_tokens,
    settings_from_model_files,
    special_token_refusal,
    token_limit,
    without_special_tokens,
)
from .word_splitting import check_pre_tokenizer, split_words

#: The public names: those defined here, and the settings files' names and advice that were defined here
#: before the settings got their own module (``tokenizer_settings``), so that importing them from here still works.
__all__ = [
    "check_equal_lengths",
    "check_lengths",
    "check_padding_side",
    "check_split_words",
    "ElmoBatchEncoding",
    "ElmoTokenizer",
    "padded_length",
    "RESTORE_SETTINGS",
    "TOKENIZER_CONFIG",
    "TOKENIZER_ONLY_OUTPUTS",
]

_logger = hf_logging.get_logger(__name__)
#: The answer to a text pair, given as ``text_pair`` or as transformers' batch of ``(text, text_pair)``.
_NO_PAIRS = (
    "ElmoTokenizer encodes single sentences (ELMo has no sentence pairs); encode each text on its own, and pass "
    "pre-split words as tokenizer(words, is_split_into_words=True)"
)
#: The refusal of ``text_target`` / ``text_pair_target``, which transformers' tokenizers encode as ``labels`` for a
#: decoder to generate.
_NO_TARGETS = (
    "ElmoTokenizer takes no {name}: ELMo has no decoder to generate target text (a task model's labels are class "
    "ids, one a word or a sentence); encode the input text as tokenizer(text) and give the model its labels (labels=) beside it"
)
#: What the tokenizer's call returns beside the models' inputs, when asked (``return_offsets_mapping``,
#: ``return_length``, ``return_special_tokens_mask``): the models' ``forward`` drops them, so that
#: ``model(**tokenizer(...))`` runs with them (``takes_only_its_arguments``).
TOKENIZER_ONLY_OUTPUTS = ("offset_mapping", "length", "special_tokens_mask")

#: The ``truncation`` values transformers' tokenizers take (for one sentence, every strategy cuts it alike).
_TRUNCATIONS = (None, True, False, "longest_first", "only_first", "only_second", "do_not_truncate")


def check_split_words(words: Sequence[Any], where: str) -> None:
    """Refuse a word that is not a str, or is empty or holds whitespace (one ELMo position reads one
    word), naming ``where`` (e.g. ``"sentence 3"``): what the tokenizer, ``embed_sentences`` and
    the exported models take as pre-split words."""
    for col, word in enumerate(words):
        if not isinstance(word, str):
            raise TypeError(f"{where}, word {col} is {described(word)}, not a str; pass each word as a string")
        if word.split() != [word]:  # empty, or whitespace in it (C speed)
            raise ValueError(
                f"{where}, word {col} ({word!r}) is empty or holds whitespace; pass each word as one non-empty "
                "string without spaces"
            )


def check_padding_side(side: Any) -> None:
    """ELMo's batches are padded on the right: the biLM reads each row from its first position."""
    if not one_of(side, ("right",)):
        raise ValueError(
            f"ElmoTokenizer pads on the right only: padding_side must be 'right', got {described(side)}; the biLM "
            "reads each sentence from the first position of its row"
        )


def check_lengths(max_length: Any, pad_to_multiple_of: Any) -> None:
    """``max_length`` and ``pad_to_multiple_of`` are counts of words, each a positive int or ``None``
    (a negative one would cut words as a slice does, and 0 would mean no limit)."""
    for name, value in (("max_length", max_length), ("pad_to_multiple_of", pad_to_multiple_of)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
            raise ValueError(f"{name} must be a positive int (a number of words) or None, got {described(value)}")


def _plain_ids(ids: Any) -> Any:
    """Char ids as Python ints and lists, from tensors, NumPy arrays and NumPy integers (a
    ``return_tensors="np"`` encoding's rows) as well, as transformers' ``decode`` takes them."""
    if isinstance(ids, (torch.Tensor, np.ndarray, np.generic)):
        return ids.tolist()
    if isinstance(ids, (list, tuple)):
        return [_plain_ids(i) for i in ids]
    return ids


def padded_length(
    longest: int, padding: bool | str, max_length: int | None, pad_to_multiple_of: int | None
) -> int | None:
    """The length a batch whose longest sentence has ``longest`` words is padded to: the longest
    (``padding=True``/``"longest"``), or ``max_length`` with ``padding="max_length"``, then rounded
    up to a multiple of ``pad_to_multiple_of``; ``None`` without padding (``False``/``"do_not_pad"``,
    transformers' default: each sentence keeps its length). A number is refused, as transformers refuses it
    (``1 == True``, but ``padding=1`` is no padding strategy)."""
    if not isinstance(padding, (bool, str)) or not one_of(
        padding, (True, False, "longest", "max_length", "do_not_pad")
    ):
        raise ValueError(
            f"padding must be True, False, 'longest', 'max_length' or 'do_not_pad', got {described(padding)}"
        )
    if padding in (False, "do_not_pad"):
        return None
    steps = longest
    if padding == "max_length":
        if max_length is None:
            raise ValueError("padding='max_length' needs max_length=N")
        steps = max(steps, max_length)
    if pad_to_multiple_of:
        steps = -(-steps // pad_to_multiple_of) * pad_to_multiple_of
    return steps


def check_equal_lengths(lengths: Sequence[int]) -> None:
    """Sentences of different lengths cannot be one tensor without padding: a ``ValueError`` that
    says to pad, as transformers' tokenizers say it."""
    if len(set(lengths)) > 1:
        raise ValueError(
            f"Unable to create tensor of sentences of different lengths ({', '.join(map(str, lengths))} words) "
            "without padding: pass padding=True to pad them to the longest, as batched tensors must be"
        )


class ElmoBatchEncoding(BatchEncoding):
    """``BatchEncoding`` that knows which word each position is.

    transformers keeps ``word_ids`` in the Rust ``Encoding`` objects of fast tokenizers. ELMo's
    positions are whole words, left-aligned, so the map follows from ``attention_mask``:
    ``word_ids(i)`` is ``[f, f + 1, ..., f + n-1]`` for row i's n words, then ``None`` for each
    padding position (from ``input_ids`` when the mask was not asked for), where ``f`` is the
    index of the row's first kept word: 0, or, after ``truncation_side="left"`` cut its first
    words, their number (``first_words``), as fast tokenizers number the words of their input;
    ``pad`` keeps each encoding's, and where it got a plain dict from a ``truncation_side="left"``
    tokenizer, whose cut words it cannot know (``None``), a map that counts words is refused.
    The other maps of a fast tokenizer's encoding follow as they give them (``tokens``,
    ``sequence_ids``, ``token_to_word``, ``word_to_tokens``, ``token_to_sequence``; a position is
    a token), and, from the kept words and their character spans (``words``, ``spans``: what the
    tokenizer's call passes; ``(0, len(word))`` for pre-split words, as fast tokenizers give them),
    ``token_to_chars``, ``char_to_token``, ``word_to_chars`` and ``char_to_word``.
    """

    def __init__(
        self,
        data: dict[str, Any] | None = None,
        *args: Any,
        first_words: Sequence[int | None] = (),
        words: Sequence[Sequence[str]] = (),
        spans: Sequence[Sequence[tuple[int, int]]] = (),
        **kwargs: Any,
    ):
        super().__init__(data, *args, **kwargs)
        self._first_words = list(first_words)
        self._words = [list(row) for row in words]
        self._spans = [list(row) for row in spans]

    def __getstate__(self) -> dict[str, Any]:  # pickled (DataLoader workers) whole, n_sequences too
        return {
            **super().__getstate__(),
            "first_words": self._first_words,
            "words": self._words,
            "spans": self._spans,
            "n_sequences": self._n_sequences,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._first_words = state.get("first_words", [])
        self._words = state.get("words", [])
        self._spans = state.get("spans", [])
        self._n_sequences = state.get("n_sequences")

    def __getitem__(self, item: Any) -> Any:
        """A field (``enc["input_ids"]``) or a slice of the batch, as in transformers; an integer, which picks a fast
        tokenizer's ``tokenizers.Encoding`` of a sentence, is a ``KeyError`` in one line that names what to ask
        instead (was transformers' "Invalid key. Only three types of key are available")."""
        if isinstance(item, (int, np.integer)):
            raise KeyError(
                f"encoding[{item}]: an integer picks a fast tokenizer's tokenizers.Encoding, which ElmoTokenizer does "
                f"not make: ask the sentence's maps (encoding.word_ids({item}), encoding.tokens({item})) or index a "
                f"field (encoding['input_ids'][{item}])"
            )
        return super().__getitem__(item)

    def _row(self, batch_index: int) -> tuple[int, list[int]]:
        """(row, its mask: 1 a word, 0 padding) of ``batch_index`` (negative: from the end); an
        ``IndexError`` naming the batch's size beyond it."""
        mask = self.data.get("attention_mask")
        if mask is None:  # return_attention_mask=False: padding tokens are the all-zero ones
            ids = self.data["input_ids"]
            mask = _real_tokens(ids.tolist() if hasattr(ids, "tolist") else ids)
        flat = mask.ndim == 1 if hasattr(mask, "ndim") else not (mask and isinstance(mask[0], list))
        rows = [mask] if flat else mask  # one sentence: a flat mask
        if not -len(rows) <= batch_index < len(rows):
            raise IndexError(f"batch index {batch_index} is out of range: this encoding holds {len(rows)} sentence(s)")
        row = batch_index % len(rows)
        real = rows[row]  # only this row of a tensor or NumPy array is made a list: a map is asked position by position
        return row, real.tolist() if hasattr(real, "tolist") else real

    def _first(self, method: str, row: int) -> int:
        """The index of ``row``'s first kept word, from which ``method`` counts; a ``ValueError`` where ``pad`` could
        not know it (a plain dict from a ``truncation_side="left"`` tokenizer)."""
        first = self._first_words[row] if self._first_words else 0
        if first is None:
            raise ValueError(
                f"{method}(): pad got sentence {row} as a plain dict, so the words truncation_side='left' cut before "
                "it are unknown: pad the encodings the tokenizer's call returns (tokenizer.pad([tokenizer(text), ...]))"
            )
        return first

    def _known(self, method: str, batch_index: int) -> tuple[int, list[str], list[tuple[int, int]], int]:
        """(row, its kept words, their character spans, the index of its first kept word) for ``method``,
        which needs the words: a ``ValueError`` for an encoding that does not know them."""
        row, _ = self._row(batch_index)
        self._need_words(method)
        return row, self._words[row], self._spans[row], self._first(method, row)

    def _need_words(self, method: str) -> None:
        """A ``ValueError`` for ``method``, which needs the words, on an encoding that does not know them."""
        if not self._spans:
            raise ValueError(
                f"{method}() needs the words and their character spans, which only the tokenizer's call keeps "
                "(this encoding came from pad, prepare_for_model or a dict): call the tokenizer on the text"
            )

    def word_ids(self, batch_index: int = 0) -> list[int | None]:
        """Row ``batch_index``'s word index at every position (``None`` for padding)."""
        row, mask = self._row(batch_index)
        first = self._first("word_ids", row)
        return [first + position if real else None for position, real in enumerate(mask)]

    def sequence_ids(self, batch_index: int = 0) -> list[int | None]:
        """0 at each word of row ``batch_index`` (ELMo encodes one sentence at a time), ``None`` for padding."""
        return [0 if real else None for real in self._row(batch_index)[1]]

    def tokens(self, batch_index: int = 0) -> list[str]:
        """Row ``batch_index``'s words, ``""`` for padding (what ``convert_ids_to_tokens`` gives for a padding row)."""
        row, mask = self._row(batch_index)
        self._need_words("tokens")
        words = self._words[row]
        return words + [""] * (len(mask) - len(words))

    def _position(self, batch_or_index: int, index: int | None) -> tuple[int, int]:
        """(batch index, index) of a call ``f(index)`` (row 0) or ``f(batch_index, index)``, as transformers reads them."""
        return (0, batch_or_index) if index is None else (batch_or_index, index)

    def _token(self, batch_index: int, token_index: int) -> tuple[int, int | None]:
        """(row, its word's position at ``token_index`` (negative: from the end), ``None`` for padding or beyond)."""
        row, mask = self._row(batch_index)
        position = token_index + len(mask) if token_index < 0 else token_index
        return row, position if 0 <= position < len(mask) and mask[position] else None

    def token_to_sequence(self, batch_or_token_index: int, token_index: int | None = None) -> int | None:  # type: ignore[override]
        """0 for a word's position, ``None`` for padding or a position beyond the row."""
        _, position = self._token(*self._position(batch_or_token_index, token_index))
        return None if position is None else 0

    def token_to_word(self, batch_or_token_index: int, token_index: int | None = None) -> int | None:  # type: ignore[override]
        """The index of the word at a position, ``None`` for padding or a position beyond the row."""
        row, position = self._token(*self._position(batch_or_token_index, token_index))
        return None if position is None else self._first("token_to_word", row) + position

    def token_to_chars(self, batch_or_token_index: int, token_index: int | None = None) -> CharSpan | None:
        """The character span of the word at a position, ``None`` for padding or a position beyond the row."""
        row, position = self._token(*self._position(batch_or_token_index, token_index))
        self._need_words("token_to_chars")
        return None if position is None else CharSpan(*self._spans[row][position])

    def word_to_tokens(
        self, batch_or_word_index: int, word_index: int | None = None, sequence_index: int = 0
    ) -> TokenSpan | None:
        """The position of a word (one token: ``TokenSpan(p, p + 1)``), ``None`` for a word cut or beyond the row."""
        batch_index, word = self._position(batch_or_word_index, word_index)
        row, mask = self._row(batch_index)
        first = self._first("word_to_tokens", row)
        position = _checked_index("word_to_tokens", "word_index", word, sequence_index) - first
        return TokenSpan(position, position + 1) if 0 <= position < sum(mask) else None

    def word_to_chars(
        self, batch_or_word_index: int, word_index: int | None = None, sequence_index: int = 0
    ) -> CharSpan:
        """The character span of a word; an ``IndexError`` for a word cut or beyond the row."""
        batch_index, word = self._position(batch_or_word_index, word_index)
        row, _, spans, first = self._known("word_to_chars", batch_index)
        position = _checked_index("word_to_chars", "word_index", word, sequence_index) - first
        if not 0 <= position < len(spans):
            kept = f"words {first} to {first + len(spans) - 1}" if spans else "no words"
            raise IndexError(f"word_to_chars: sentence {row} has no word {word} (its encoding holds {kept})")
        return CharSpan(*spans[position])

    def _char(
        self, method: str, batch_or_char_index: int, char_index: int | None, sequence_index: int
    ) -> tuple[int | None, int]:
        """(the position of the first word whose span holds a character, ``None`` if none does, the index of the
        row's first kept word)."""
        batch_index, char = self._position(batch_or_char_index, char_index)
        _, _, spans, first = self._known(method, batch_index)
        char = _checked_index(method, "char_index", char, sequence_index)
        return next((p for p, (start, end) in enumerate(spans) if start <= char < end), None), first

    def char_to_token(  # type: ignore[override]
        self, batch_or_char_index: int, char_index: int | None = None, sequence_index: int = 0
    ) -> int | None:
        """The position of the word holding a character, ``None`` for a space or a character cut or beyond."""
        return self._char("char_to_token", batch_or_char_index, char_index, sequence_index)[0]

    def char_to_word(  # type: ignore[override]
        self, batch_or_char_index: int, char_index: int | None = None, sequence_index: int = 0
    ) -> int | None:
        """The index of the word holding a character, ``None`` for a space or a character cut or beyond."""
        position, first = self._char("char_to_word", batch_or_char_index, char_index, sequence_index)
        return None if position is None else first + position


def _checked_index(method: str, name: str, index: int, sequence_index: int) -> int:
    """``index`` (a word's or a character's), refused when negative, and ``sequence_index`` refused but 0
    (ELMo encodes one sentence at a time), each in one line."""
    if sequence_index != 0:
        raise ValueError(
            f"{method}: ELMo encodes one sentence at a time (no pairs), so sequence_index must be 0, got {sequence_index}"
        )
    if index < 0:
        raise ValueError(f"{method}: {name} must be 0 or more, got {index}")
    return index


def _one_sentence(ids: Any) -> bool:
    """Whether ``ids`` are one sentence's char ids (T, W) with T >= 1, not a batch's (B, T, W)."""
    if isinstance(ids, (torch.Tensor, np.ndarray)):
        return ids.ndim == 2
    first = ids[0] if isinstance(ids, (list, tuple)) and len(ids) > 0 else None
    return (
        isinstance(first, (list, tuple, torch.Tensor, np.ndarray))
        and len(first) > 0
        and not hasattr(first[0], "__len__")
    )


def _alone(ids: Any) -> bool:
    """Whether the ``input_ids`` of an encoding given to ``pad`` alone are one sentence's: (T, W) with T >= 1
    (``_one_sentence``), or ``[]``, ``tokenizer("")``'s sentence of no words."""
    return _one_sentence(ids) or (isinstance(ids, list) and not ids)


def _first_words_of(encoding: Any) -> list[int | None]:
    """The index of the first kept word of each sentence of ``encoding``, an ``ElmoBatchEncoding``'s; ``[]`` for
    another mapping (a plain dict), which does not say."""
    return encoding._first_words if isinstance(encoding, ElmoBatchEncoding) else []


def _is_batch(ids: Any) -> bool:
    """Whether ``ids`` (Python ints and lists, ``_plain_ids``) are a batch's char ids (B, T, W): a row of
    some sentence holding a word's row, or sentences of no words only (``[[], []]``, as a (B, 0, W) tensor's
    ``tolist()`` gives them: no word's row is empty)."""
    return isinstance(ids, list) and (
        any(isinstance(sentence, list) and len(sentence) > 0 and isinstance(sentence[0], list) for sentence in ids)
        or (len(ids) > 0 and all(sentence == [] for sentence in ids))
    )


def _real_tokens(ids: list[Any]) -> Any:
    """The attention mask of nested lists of char ids (a token's row of ints becomes 1, or 0 for
    padding), rows of any lengths."""
    if ids and isinstance(ids[0], int):
        return int(any(ids))
    return [_real_tokens(row) for row in ids]


def _what_to_pass(text: Any) -> str:
    """What to pass instead of ``text``, neither a text nor a list or tuple (``ElmoTokenizer``'s input): a dict's
    text field (its keys would be encoded), or the list of the texts an iterator gives (transformers' pipelines
    pass it whole, as one input: a generator is what they read text by text)."""
    if isinstance(text, Mapping):
        return "; pass its text field, e.g. tokenizer(row['text'])"
    if isinstance(text, Iterable) and not isinstance(text, bytes):
        return (
            "; pass list(texts): a batch is a list or tuple, as in transformers (a pipeline reads a generator text "
            "by text, and passes another iterable whole, as one input)"
        )
    return ""


class ElmoTokenizer(UploadsNoSaveLock, PreTrainedTokenizer):
    """Turns words into ELMo character ids.

    ``tokenizer(texts)`` splits raw strings into words with the rule the model was trained on
    (``pre_tokenizer``, saved in ``tokenizer_config.json`` and in the model's config:
    ``"whitespace"`` for the original models, trained on Moses-like tokens, and for ``elmo
    pretrain`` output unless told otherwise; ``"spacy:en"``, spaCy's English rules, for the
    shipped model); ``tokenizer(words, is_split_into_words=True)`` takes pre-tokenised sentences.
    It returns ``input_ids`` (B, T, max_characters_per_token) and ``attention_mask`` (B, T), as
    lists or, with ``return_tensors="pt"`` (``"np"``), tensors (arrays) (``padding=True`` pads a batch to its longest
    sentence; without it, as in transformers, each sentence keeps its length); on request
    ``offset_mapping`` (B, T, 2) (each word's character span in its text; ``(0, len(word))`` for
    pre-split words; ``(0, 0)`` for padding) and ``special_tokens_mask`` (B, T) (1 for padding:
    ELMo adds no special tokens). A text without words (``""``, or ``[]`` with
    ``is_split_into_words=True``) is a row of padding, mask 0, as transformers' tokenizers accept
    it (a batch of only such texts has T = 0); the model gives it zero vectors. The result's
    ``word_ids(i)`` maps positions to words. There is no word vocabulary: ids are UTF-8 bytes
    (``get_vocab`` names the 262 char ids);
    ``convert_tokens_to_ids`` / ``convert_ids_to_tokens`` / ``decode`` map between words and
    rows of char ids (lists, tensors or NumPy arrays); ``encode`` gives the call's ``input_ids``.
    """

    model_input_names = ["input_ids", "attention_mask"]
    vocab_files_names: dict[str, str] = {}
    #: The hf-elmo package's loader (``hf_elmo.loading.PACKAGE_LOADER``), set when the package is
    #: imported (``ElmoPreTrainedModel.package_loader`` says why it is a hook); ``None`` in a
    #: remote-code copy.
    package_loader: ClassVar[Any | None] = None

    def __init__(
        self,
        max_characters_per_token: int = 50,
        max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
        pre_tokenizer: str = WHITESPACE,
        **kwargs: Any,
    ) -> None:
        refuse_misspelt_settings(kwargs)
        refuse_foreign_settings(kwargs)
        max_characters_per_token = checked_width(max_characters_per_token)
        self.max_characters_per_token = max_characters_per_token
        self.max_token_chars = max_token_chars = token_limit(max_token_chars)
        self.pre_tokenizer = check_pre_tokenizer(pre_tokenizer)
        check_padding_side(kwargs.get("padding_side", "right"))
        kwargs = without_special_tokens(kwargs)
        super().__init__(
            max_characters_per_token=max_characters_per_token,
            max_token_chars=max_token_chars,
            pre_tokenizer=self.pre_tokenizer,
            **kwargs,
        )

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: Any, *args: Any, **kwargs: Any) -> ElmoTokenizer:
        """``PreTrainedTokenizer.from_pretrained``, which also

        - loads a model folder (or Hub repository) saved without its tokenizer files
          (``model.save_pretrained`` alone) with the width and pre-tokenizer its ``config.json``
          records (``ElmoConfig.pre_tokenizer``), so that raw text is split as the model's training
          text was; where the config records none, it warns that raw text is split at whitespace;
        - refuses the folder of another model (``config.json``'s ``model_type``, or another
          ``tokenizer_class`` in ``tokenizer_config.json``) in one line;
        - with the hf-elmo package imported, takes every name ``ElmoModel.from_pretrained`` takes
          (``package_loader.tokenizer_source``): shipped names (``hf-elmo:elmo-2x1024-en``), the
          original files (the whitespace tokenizer of the released models, at their width), a
          ``subfolder`` of each, and a name that is no model (or a subfolder that is not there) is
          the same one-line ``ModelNotFoundError``;
        - refuses a special token (``pad_token="[PAD]"``) in one line, as ``__init__`` does, and drops one that
          an older folder's tokenizer files saved, with a one-line warning naming it (``without_special_tokens``).
        """
        refuse_special_tokens(kwargs)
        if cls.package_loader is not None:
            subfolder = kwargs.pop("subfolder", None) or ""  # resolved: the subfolder itself
            resolved = cls.package_loader.tokenizer_source(cls, pretrained_model_name_or_path, kwargs, subfolder)
            if isinstance(resolved, ElmoTokenizer):  # original files
                return resolved
            pretrained_model_name_or_path = resolved
        check_saved_whole(pretrained_model_name_or_path, kwargs.get("subfolder") or "")
        saved, marked = settings_from_model_files(pretrained_model_name_or_path, kwargs)
        if marked is not None:
            # transformers reads the tokenizer's files as UTF-8 and fails on the mark: load copies without it
            with (
                tempfile.TemporaryDirectory(prefix="hf-elmo-") as folder,
                loading_settings_of(pretrained_model_name_or_path),
            ):
                for name in TOKENIZER_JSON_FILES:
                    if (Path(marked).parent / name).is_file():
                        text = (Path(marked).parent / name).read_bytes()
                        (Path(folder) / name).write_bytes(text.removeprefix(codecs.BOM_UTF8))
                tokenizer = cls.from_pretrained(
                    folder, *args, **{k: v for k, v in kwargs.items() if k not in FILE_KWARGS}
                )
            tokenizer.name_or_path = tokenizer.init_kwargs["name_or_path"] = os.fspath(pretrained_model_name_or_path)
            return tokenizer
        try:
            with loading_settings_of(pretrained_model_name_or_path):
                return super().from_pretrained(pretrained_model_name_or_path, *args, **{**saved, **kwargs})
        except ElmoConfigError as err:  # name the file the bad setting came from
            if err.field in kwargs:
                raise ElmoConfigError(err.field, err.problem, where="from_pretrained argument ") from None
            filename = CONFIG_NAME if err.field in saved else TOKENIZER_CONFIG
            where = config_file(pretrained_model_name_or_path, kwargs.get("subfolder") or "", filename)
            raise ElmoConfigError(err.field, err.problem, where=f"{where}: field ") from None

    @property
    def vocab_size(self) -> int:
        return N_CHAR_IDS

    def __len__(self) -> int:
        """The number of char ids, ``vocab_size``: an ELMo tokenizer has no added tokens."""
        return N_CHAR_IDS

    def add_tokens(self, new_tokens: Any, special_tokens: bool = False) -> int:
        """Refused for any token (``resize_token_embeddings`` is too): see ``add_special_tokens``."""
        if new_tokens:
            raise ValueError(NOTHING_TO_ADD)
        return 0

    def add_special_tokens(self, special_tokens_dict: Any, replace_extra_special_tokens: bool = True) -> int:
        """Refused for any token: ELMo reads every word from its characters and pads with id 0
        (``pad_token_id``), so there is no token vocabulary to add to (transformers would report the
        tokens added and change nothing)."""
        if special_tokens_dict:
            raise ValueError(NOTHING_TO_ADD)
        return 0

    def __setattr__(self, key: str, value: Any) -> None:
        """Setting a special token (``tokenizer.pad_token = "[PAD]"``, ``eos_token_id = 2``) is refused as
        ``add_special_tokens`` is: transformers would keep it, change no padding and give ``all_special_ids`` a
        row of char ids. To ``None`` (``tokenizer.pad_token = tokenizer.eos_token``, ``None`` here) or
        ``pad_token_id = 0`` (its value; an integer, not ``False``) it changes nothing, and passes."""
        named = key.removesuffix("_ids").removesuffix("_id")
        if named in self.SPECIAL_TOKENS_ATTRIBUTES and value is not None:
            if key == "pad_token_id" and is_number(value, whole=True) and value == 0:  # not False: a bool is no id
                return
            raise special_token_refusal(key, value)
        super().__setattr__(key, value)

    def get_vocab(self) -> dict[str, int]:
        """The names of the ``N_CHAR_IDS`` char ids (``len(tokenizer)`` of them): ``<pad>`` (0, a
        padding token), ``<0xHH>`` for UTF-8 byte HH (as byte-fallback vocabularies name bytes),
        then the markers ``<S>``, ``</S>``, ``<bow>``, ``<eow>`` and ``<char_pad>``. A word is a
        row of these ids (``convert_tokens_to_ids``), not one of them."""
        return dict(CHAR_ID_NAMES)

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        return split_words(text, self.pre_tokenizer)[0]

    def save_pretrained(
        self,
        save_directory: str | os.PathLike,
        legacy_format: bool | None = None,
        filename_prefix: str | None = None,
        push_to_hub: bool = False,
        **kwargs: Any,
    ) -> tuple[str, ...]:
        """``PreTrainedTokenizer.save_pretrained``; ``~`` is the home folder, and a path that is a file is refused
        (``check_save_folder``), where transformers logs it and writes nothing; another process's save into the folder
        is waited for (``one_save_at_a_time``); with ``push_to_hub``, the folder is saved whole first, then pushed
        (``push_saved``): ``saving_into``. A ``filename_prefix`` is refused before anything is
        written: the folder would not load. It returns the files written (transformers names ``added_tokens.json``
        too, which an ELMo tokenizer, adding no tokens, never writes)."""
        if filename_prefix:  # transformers writes PREFIX-tokenizer_config.json, which no from_pretrained reads
            raise ValueError(
                f"ElmoTokenizer.save_pretrained: filename_prefix={filename_prefix!r} would write "
                f"{filename_prefix}-tokenizer_config.json, which from_pretrained does not read (it reads "
                "tokenizer_config.json): save into a folder of its own, without filename_prefix"
            )
        with saving_into(self, save_directory, push_to_hub, kwargs, SETTINGS_SUFFIXES) as (aside, folder):
            saved = super().save_pretrained(aside, legacy_format, filename_prefix, **kwargs)
            names = [os.path.relpath(path, aside) for path in saved if os.path.isfile(path)]
        return tuple(os.path.join(folder, name) for name in names)  # where the files are once moved in

    def save_vocabulary(self, save_directory: str, filename_prefix: str | None = None) -> tuple[str, ...]:
        return ()

    # -- words <-> char ids ------------------------------------------------------------------
    def convert_tokens_to_ids(self, tokens: str | Sequence[str]) -> list[int] | list[list[int]]:  # type: ignore[override]
        """A word's ``max_characters_per_token`` char ids, or a list of them for a list of words."""
        if isinstance(tokens, str):
            return token_to_char_ids(tokens, self.max_characters_per_token, self.max_token_chars)
        return [token_to_char_ids(t, self.max_characters_per_token, self.max_token_chars) for t in tokens]

    @property
    def pad_token_id(self) -> int:
        """0: a padding token's char ids are all 0, the value transformers' pipelines fill a batch
        with (``pipeline(..., batch_size=N)``)."""
        return 0

    def convert_ids_to_tokens(  # type: ignore[override]
        self,
        ids: int | Sequence[int] | Sequence[Sequence[int]] | torch.Tensor | np.ndarray,
        skip_special_tokens: bool = False,
    ) -> str | list[str]:
        """The word of one row of char ids (W,), or the words of (T, W) rows; see
        ``char_ids_to_token``. ``skip_special_tokens`` leaves out padding and sentence markers.
        A single id is a token only as ``pad_token_id`` (0: padding, the empty word). A batch's
        (B, T, W) is refused in one line, as transformers' tokenizers take one sequence here."""
        rows = _plain_ids(ids)
        if _is_batch(rows):
            raise ValueError(
                "convert_ids_to_tokens takes one word's char ids (W,) or one sentence's (T, W), got a batch's "
                "(B, T, W): convert each sentence (convert_ids_to_tokens(ids[i])), or batch_decode(ids) for their texts"
            )
        if isinstance(rows, int):
            if rows != self.pad_token_id:
                raise ValueError(
                    f"char id {rows} alone is not a token: an ELMo token is a row of {self.max_characters_per_token} "
                    "char ids; pass a row (W,) or rows (T, W)"
                )
            return ""
        if len(rows) > 0 and isinstance(rows[0], int):  # one row (W,)
            return char_ids_to_token(rows)
        return self._words(rows, skip_special_tokens)

    def get_special_tokens_mask(
        self, token_ids_0: Any, token_ids_1: Any = None, already_has_special_tokens: bool = False
    ) -> list[int]:
        """1 for each padding position of one sentence's (T, W) char ids, 0 for a word: the
        ``special_tokens_mask`` of the tokenizer's output (the model adds the sentence markers,
        so no other position is special)."""
        if token_ids_1 is not None:
            raise ValueError(_NO_PAIRS)
        rows = token_ids_0.tolist() if isinstance(token_ids_0, torch.Tensor) else token_ids_0
        return [int(not any(row)) for row in rows]

    def _words(self, rows: Sequence[Sequence[int]], skip_special_tokens: bool) -> list[str]:
        """The words of (T, W) char ids (``convert_ids_to_tokens``)."""
        tokens = [char_ids_to_token(row) for row in rows]
        if skip_special_tokens:
            tokens = [t for t in tokens if t not in ("", SENTENCE_START, SENTENCE_END)]
        return tokens

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        """Words joined by single spaces (the exact spacing of the text is not kept in char ids)."""
        return " ".join(t for t in tokens if t)

    def decode(
        self,
        token_ids: int
        | Sequence[int]
        | Sequence[Sequence[int]]
        | Sequence[Sequence[Sequence[int]]]
        | torch.Tensor
        | np.ndarray,
        skip_special_tokens: bool = False,
        **kwargs: Any,
    ) -> str | list[str]:
        """The words of (T, W) char ids joined by spaces (padding left out); one word's row (W,)
        gives that word, and (B, T, W) a list of sentences. A single id is a word only as
        ``pad_token_id`` (see ``convert_ids_to_tokens``)."""
        rows = _plain_ids(token_ids)
        if isinstance(rows, int):
            return cast(str, self.convert_ids_to_tokens(rows))
        first = rows[0] if len(rows) > 0 else None
        if isinstance(first, int):  # one word's row (W,)
            return self._decode_sentence([cast(Sequence[int], rows)], skip_special_tokens)
        if _is_batch(rows):  # (B, T, W)
            return self.batch_decode(cast(Sequence[Sequence[Sequence[int]]], rows), skip_special_tokens)
        return self._decode_sentence(cast(Sequence[Sequence[int]], rows), skip_special_tokens)

    def batch_decode(  # type: ignore[override]
        self,
        sequences: Sequence[Sequence[Sequence[int]]] | torch.Tensor | np.ndarray,
        skip_special_tokens: bool = False,
        **kwargs: Any,
    ) -> list[str]:
        """``decode`` of every row of (B, T, W) char ids. One sentence's (T, W) or one word's (W,) is
        decoded as a batch of one, with the warning transformers gives for a single sequence."""
        rows = _plain_ids(sequences)
        if isinstance(rows, int) or _one_sentence(rows) or (len(rows) > 0 and isinstance(rows[0], int)):
            _logger.warning_once(  # as transformers' batch_decode does
                "Passing a single sequence to `batch_decode` is deprecated and will be removed in a future version, "
                "use `decode` instead."
            )
            return [cast(str, self.decode(rows, skip_special_tokens))]
        return [self._decode_sentence(row, skip_special_tokens) for row in rows]

    def _decode_sentence(self, rows: Sequence[Sequence[int]], skip_special_tokens: bool) -> str:
        """The words of (T, W) char ids (Python ints) joined by spaces."""
        return self.convert_tokens_to_string(self._words(rows, skip_special_tokens))

    # -- encoding ----------------------------------------------------------------------------
    def __call__(
        self,
        text: str | Sequence[str] | Sequence[Sequence[str]] | None = None,  # None: refused, saying what to pass
        text_pair: Any = None,
        *,
        is_split_into_words: bool = False,
        padding: bool | str = False,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_tensors: str | None = None,
        return_attention_mask: bool | None = None,
        return_offsets_mapping: bool = False,
        return_special_tokens_mask: bool = False,
        return_length: bool = False,
        **kwargs: Any,
    ) -> ElmoBatchEncoding:
        """Encode one sentence or a batch; see the class docstring.

        As in transformers, a batch is padded only when asked: ``padding=True``/``"longest"`` pads
        to its longest sentence, ``padding="max_length"`` to ``max_length``, and
        ``pad_to_multiple_of`` rounds the length up. Without padding (the default) each sentence
        keeps its length: ragged lists, or, with ``return_tensors="pt"``, a ``ValueError`` for
        sentences of different lengths (pass ``padding=True``). Padding goes on the right
        only (``padding_side="left"`` is an error: the biLM reads each row from its first
        position). ``truncation=True`` keeps ``max_length`` (default ``model_max_length``) words
        of each sentence: the first ones, or the last with ``truncation_side="left"``; so does
        ``max_length`` alone, without padding, with a warning (as in transformers).
        ``return_length=True`` adds ``length``, each sentence's number of words;
        ``add_special_tokens`` changes nothing (the model adds the sentence markers).
        """
        self._check_options(text_pair, return_tensors, padding_side, max_length, pad_to_multiple_of, kwargs)
        sentences, spans, single = self._split(text, is_split_into_words)
        if not sentences:
            raise ValueError('ElmoTokenizer got an empty batch ([]): pass at least one text ("" encodes as no words)')
        limit = self._words_kept(truncation, max_length, padding)
        keeps = [self._kept(len(words), limit) for words in sentences]
        first_words = [keep.start for keep in keeps]  # word_ids count the words cut before the kept ones
        if limit is not None:
            sentences = [words[keep] for words, keep in zip(sentences, keeps)]
            spans = [places[keep] for places, keep in zip(spans, keeps)]
        lengths = [len(words) for words in sentences]
        padded = padded_length(max(lengths, default=0), padding, max_length, pad_to_multiple_of)
        if padded is None and return_tensors is not None:
            check_equal_lengths(lengths)
        ids = batch_to_ids(sentences, self.max_characters_per_token, self.max_token_chars, allow_empty=True)
        steps = ids.shape[1] if padded is None else padded
        ids = torch.nn.functional.pad(ids, (0, 0, 0, steps - ids.shape[1]))
        mask = (ids > 0).any(dim=-1).long()
        data: dict[str, Any] = {"input_ids": ids}
        if return_attention_mask is not False:
            data["attention_mask"] = mask
        if return_length:
            data["length"] = torch.tensor(lengths)
        if return_offsets_mapping:
            data["offset_mapping"] = torch.tensor([s + [(0, 0)] * (steps - len(s)) for s in spans]).view(
                len(spans), steps, 2
            )
        if return_special_tokens_mask:
            data["special_tokens_mask"] = 1 - mask
        if return_tensors == "np":
            data = {key: value.numpy() for key, value in data.items()}
        elif return_tensors is None:
            data = {key: value.tolist() for key, value in data.items()}
            for key, rows in data.items():
                if key == "offset_mapping":  # pairs as tuples, as transformers returns them
                    rows = [[tuple(pair) for pair in row] for row in rows]
                if key != "length" and padded is None:  # ragged: each sentence its own length
                    rows = [row[:length] for row, length in zip(rows, lengths)]
                data[key] = rows[0] if single else rows
        return ElmoBatchEncoding(data, n_sequences=1, first_words=first_words, words=sentences, spans=spans)

    def _check_options(
        self,
        pair: Any,
        return_tensors: str | None,
        padding_side: str | None,
        max_length: int | None,
        pad_to_multiple_of: int | None,
        kwargs: dict[str, Any],
    ) -> None:
        """Refuse what an encoding call (``__call__``, ``prepare_for_model``) asks that ELMo cannot do: a
        sentence pair, a target text, token type ids, an option it does not know (``kwargs``, its other
        keyword arguments), other tensors than ``"pt"``/``"np"``, left padding, a length that is no positive int.
        ``add_special_tokens`` and ``verbose`` change nothing (the model adds the sentence markers)."""
        if pair is not None:
            raise ValueError(_NO_PAIRS)
        kwargs.pop("add_special_tokens", None)  # either way: ELMo's sentence markers are added by the model
        kwargs.pop("verbose", None)
        target = next((name for name in ("text_target", "text_pair_target") if kwargs.get(name) is not None), None)
        if target is not None:
            raise ValueError(_NO_TARGETS.format(name=target))
        if kwargs.pop("return_token_type_ids", None):
            raise ValueError("ELMo has no token type ids (one sentence at a time): leave return_token_type_ids unset")
        unused = sorted(k for k, v in kwargs.items() if not one_of(v, (None, False)))
        # stride, return_overflowing_tokens, a misspelt option: ELMo reads each sentence whole, a word a position
        if unused:
            raise TypeError(
                f"ElmoTokenizer does not support {unused}: leave {'it' if len(unused) == 1 else 'them'} unset"
            )
        if not one_of(return_tensors, (None, "pt", "np")):
            raise ValueError(
                f"ElmoTokenizer supports return_tensors=None, 'pt' or 'np', got {described(return_tensors)}"
            )
        check_padding_side(self.padding_side if padding_side is None else padding_side)
        check_lengths(max_length, pad_to_multiple_of)

    def _words_kept(self, truncation: bool | str | None, max_length: int | None, padding: bool | str) -> int | None:
        """How many words of a sentence an encoding keeps (``None``: all): ``max_length`` (default
        ``model_max_length``) with ``truncation``, and, as in transformers, ``max_length`` alone without
        padding, with a warning. A ``truncation`` transformers does not know, or a ``model_max_length``
        that is no positive number of words (0 kept none, -1 all but the last), is a ``ValueError``."""
        if not one_of(truncation, _TRUNCATIONS):
            raise ValueError(
                f"truncation must be True, False, 'longest_first', 'only_first', 'only_second' or 'do_not_truncate', "
                f"got {described(truncation)}"
            )
        if truncation is None and max_length is not None and padding in (False, "do_not_pad"):
            _logger.warning_once(  # as transformers' tokenizers do
                "max_length is given without truncation: each sentence is cut to max_length words (pass "
                "truncation=True to say so, or truncation=False to keep every word)"
            )
            truncation = True
        if truncation in (None, False, "do_not_truncate"):
            return None
        if max_length is not None:
            return max_length
        limit = self.model_max_length
        if isinstance(limit, float) and limit.is_integer():  # 1e30, as old tokenizer configs may hold it
            limit = int(limit)
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ValueError(
                f"the tokenizer's model_max_length must be a positive int (a number of words), got {described(limit)}: set "
                "tokenizer.model_max_length (or its tokenizer_config.json), or pass max_length"
            )
        return int(limit)

    def _kept(self, length: int, limit: int | None) -> slice:
        """The words of a sentence of ``length`` words that an encoding keeps (``_words_kept``'s ``limit``;
        ``None``: all): its first ``limit``, or its last with ``truncation_side="left"``. Its ``start`` is
        the number of words cut before the kept ones, from which ``word_ids`` count."""
        first = max(length - limit, 0) if limit is not None and self.truncation_side == "left" else 0
        return slice(first, None if limit is None else first + limit)

    def prepare_for_model(  # type: ignore[override]
        self,
        ids: Sequence[Sequence[int]] | torch.Tensor | np.ndarray,
        pair_ids: Any = None,
        add_special_tokens: bool = True,
        padding: bool | str = False,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        stride: int = 0,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_tensors: str | None = None,
        return_attention_mask: bool | None = None,
        return_special_tokens_mask: bool = False,
        return_length: bool = False,
        prepend_batch_axis: bool = False,
        **kwargs: Any,
    ) -> ElmoBatchEncoding:
        """One sentence's char ids (T, W), as ``convert_tokens_to_ids(words)`` gives them, made into the
        model's input as transformers' ``prepare_for_model`` does with a sentence's ids: what the call gives
        for those words. ``truncation`` and ``max_length`` cut it as the call does, ``padding`` pads it as
        ``pad`` does; ``attention_mask`` (unless ``return_attention_mask=False``), ``special_tokens_mask`` and
        ``length`` on request; ``prepend_batch_axis`` makes it a batch of one. A pair is refused, as by the call."""
        self._check_options(pair_ids, return_tensors, padding_side, max_length, pad_to_multiple_of, kwargs)
        rows = _plain_ids(ids)
        width = self.max_characters_per_token
        if not isinstance(rows, list) or any(
            not isinstance(row, list) or len(row) != width or not all(isinstance(i, int) for i in row) for row in rows
        ):
            raise ValueError(
                f"prepare_for_model takes one sentence's char ids, rows of {width} ints (T, {width}) as "
                f"convert_tokens_to_ids(words) gives them, got {str(rows)[:60]}"
            )
        limit = self._words_kept(truncation, max_length, padding)
        keep = self._kept(len(rows), limit)
        rows = rows[keep]
        padded = self.pad(
            [{"input_ids": rows}],
            padding=padding,
            max_length=max_length,
            pad_to_multiple_of=pad_to_multiple_of,
            return_attention_mask=return_attention_mask,
        )
        data = {key: value[0] for key, value in padded.items()}
        if not rows:  # no row shows input_ids' (T, W)
            data["input_ids"] = np.zeros((0, width), dtype=np.int64) if return_tensors is not None else []
        if return_special_tokens_mask:
            data["special_tokens_mask"] = self.get_special_tokens_mask(data["input_ids"])
        if return_length:
            data["length"] = len(rows)
        return ElmoBatchEncoding(
            data, tensor_type=return_tensors, prepend_batch_axis=prepend_batch_axis, first_words=[keep.start]
        )

    def encode(
        self,
        text: str | Sequence[str] | Sequence[Sequence[str]],
        text_pair: Any = None,
        add_special_tokens: bool = True,
        padding: bool | str = False,
        truncation: bool | str | None = None,
        max_length: int | None = None,
        stride: int = 0,
        padding_side: str | None = None,
        return_tensors: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """The call's ``input_ids``, as transformers' ``encode`` gives: (T, W) char ids for one
        sentence (lists, or (1, T, W) with ``return_tensors``), (B, T, W) for a batch. The stock
        ``encode`` would build integer ids a token through a path that cannot hold char-id rows."""
        return self(
            text,
            text_pair,
            add_special_tokens=add_special_tokens,
            padding=padding,
            truncation=truncation,
            max_length=max_length,
            stride=stride,
            padding_side=padding_side,
            return_tensors=return_tensors,
            **kwargs,
        )["input_ids"]

    def pad(  # type: ignore[override]
        self,
        encoded_inputs: Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]],
        padding: bool | str = True,
        max_length: int | None = None,
        pad_to_multiple_of: int | None = None,
        return_tensors: str | None = None,
        **kwargs: Any,
    ) -> ElmoBatchEncoding:
        """Pad single-sentence encodings into one batch, as transformers' data collators ask.

        Each encoding holds ``input_ids`` (T_i, W) and optionally ``attention_mask`` /
        ``offset_mapping`` / ``special_tokens_mask`` (T_i) (lists, tensors or NumPy arrays; a missing
        ``attention_mask`` is made from the ids, 0 on all-zero padding tokens); they are padded on the right to the
        longest (or ``max_length`` with ``padding="max_length"``, rounded up to a multiple of
        ``pad_to_multiple_of``) with all-zero tokens, mask 0, span (0, 0) and special 1
        (``padding=False``: not at all, as in transformers). Other fields (``labels``) are batched
        as they are. One encoding alone (a dict whose ``input_ids`` are one sentence's (T, W), ``[]`` for one of no
        words) is padded alone and given back so, without a batch axis, as transformers' ``pad`` gives it.
        ``word_ids`` keep counting from each sentence's first kept word (``first_words``), as the tokenizer's
        encodings know it; a plain dict's is 0, or unknown with ``truncation_side="left"``.
        """
        if isinstance(encoded_inputs, Mapping) and _alone(encoded_inputs.get("input_ids")):
            alone = self.pad([encoded_inputs], padding, max_length, pad_to_multiple_of, return_tensors, **kwargs)
            return ElmoBatchEncoding(
                {key: value[0] for key, value in alone.items()},
                tensor_type=return_tensors,
                first_words=alone._first_words,
            )
        unknown = 0 if self.truncation_side == "right" else None  # a plain dict's first word
        if isinstance(encoded_inputs, Mapping):  # a dict of per-sentence lists
            known = _first_words_of(encoded_inputs)
            encoded_inputs = [dict(zip(encoded_inputs, values)) for values in zip(*encoded_inputs.values())]
            first_words = known or [unknown] * len(encoded_inputs)
        else:
            encoded_inputs = list(encoded_inputs)
            first_words = [(_first_words_of(f) or [unknown])[0] for f in encoded_inputs]
        features = [
            {k: v.tolist() if isinstance(v, (torch.Tensor, np.ndarray)) else v for k, v in f.items()}
            for f in encoded_inputs
        ]
        if not features or "input_ids" not in features[0]:
            raise ValueError("ElmoTokenizer.pad needs a non-empty list of encodings with input_ids")
        batched = next((row for row, f in enumerate(features) if _is_batch(f.get("input_ids"))), None)
        if batched is not None:  # tokenizer(text, return_tensors="pt"): a batch of one, (1, T, W)
            raise ValueError(
                f"ElmoTokenizer.pad takes one sentence's encodings, input_ids (T, W), but encoding {batched}'s are a "
                "batch's (B, T, W): encode each text without return_tensors (tokenizer(text)) and pass return_tensors "
                "to pad, or pad a batch's encoding alone (tokenizer.pad(tokenizer(texts)))"
            )
        side = kwargs.get("padding_side")
        check_padding_side(self.padding_side if side is None else side)
        check_lengths(max_length, pad_to_multiple_of)
        lengths = [len(f["input_ids"]) for f in features]
        padded = padded_length(max(lengths), padding, max_length, pad_to_multiple_of)
        if padded is None and return_tensors is not None:
            check_equal_lengths(lengths)
        fill = {
            "input_ids": [0] * self.max_characters_per_token,
            "attention_mask": 0,
            "offset_mapping": (0, 0),
            "special_tokens_mask": 1,
        }
        batch: dict[str, Any] = {key: [] for key in features[0]}
        for feature, length in zip(features, lengths):
            if "attention_mask" not in feature and kwargs.get("return_attention_mask") is not False:
                feature["attention_mask"] = _real_tokens(feature["input_ids"])  # 0 on padding it already holds
            extra = 0 if padded is None else padded - length
            for key, value in feature.items():
                batch.setdefault(key, []).append(list(value) + [fill[key]] * extra if key in fill else value)
        if return_tensors is not None and max(lengths) == 0 and not padded:  # no row shows (T, W) or (T, 2)
            batch["input_ids"] = torch.zeros(len(features), 0, self.max_characters_per_token, dtype=torch.long)
            if "offset_mapping" in batch:
                batch["offset_mapping"] = torch.zeros(len(features), 0, 2, dtype=torch.long)
        return ElmoBatchEncoding(batch, tensor_type=return_tensors, first_words=first_words)

    def _split(
        self, text: str | Sequence[str] | Sequence[Sequence[str]] | None, is_split_into_words: bool
    ) -> tuple[list[list[str]], list[list[tuple[int, int]]], bool]:
        """(words, character spans, whether the input was one sentence) of ``text`` (anything else, ``None``
        too, is a TypeError saying what to pass)."""
        if not isinstance(text, (str, list, tuple)):  # as transformers' tokenizers: an iterator is no batch
            raise TypeError(
                f"ElmoTokenizer takes a text (str) or a list of texts, or with is_split_into_words=True a list of "
                f"words or a list of such lists, got {described(text)}" + _what_to_pass(text)
            )
        if is_split_into_words:
            if isinstance(text, str):
                raise TypeError(
                    f"is_split_into_words=True expects a list of words (or a batch of lists), got {described(text)}; "
                    "pass raw text without is_split_into_words to have it split into words"
                )
            single = len(text) == 0 or isinstance(text[0], str)  # [] is a sentence of no words, as in transformers
            batch = [cast(Sequence[str], text)] if single else list(text)
            sentences: list[list[str]] = []
            for row, sentence in enumerate(batch):
                words = words_of(sentence, f"is_split_into_words=True: sentence {row} of the batch")
                check_split_words(words, f"is_split_into_words=True: sentence {row}")
                sentences.append(words)
            return sentences, [[(0, len(w)) for w in s] for s in sentences], single
        single = isinstance(text, str)
        batch = [text] if isinstance(text, str) else list(text)
        texts = [s for s in batch if isinstance(s, str)]
        if len(texts) < len(batch):
            others = [(row, s) for row, s in enumerate(batch) if not isinstance(s, str)]
            if all(
                isinstance(s, (list, tuple)) and len(s) == 2 and all(isinstance(t, str) for t in s) for _, s in others
            ):
                raise ValueError(_NO_PAIRS)  # transformers reads [(text, text_pair), ...] as a batch of pairs
            row, other = others[0]
            raise TypeError(
                f"sentence {row} of the batch is {described(other)}, not a text (str); pass pre-split words "
                "with is_split_into_words=True"
            )
        split = [split_words(s, self.pre_tokenizer) for s in texts]
        return [words for words, _ in split], [spans for _, spans in split], single
