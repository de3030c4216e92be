"""ELMo's character vocabulary: the char ids of a token, a sentence and a batch, and the sentence markers.

A token becomes ``max_characters_per_token`` ids: its UTF-8 bytes cut to ``max - 2``, wrapped in
begin/end-of-word ids and padded; every id is then shifted by +1 so that 0 means padding. A
padding token is all zeros. Sentence markers ``<S>``/``</S>`` are added by ``add_sentence_markers``:
by the model itself at inference (so the tokenizer leaves them out), by the LM data in training.
A token that is literally ``"<S>"`` or ``"</S>"`` gets the markers' ids, not its bytes, as in
AllenNLP (``ELMoCharacterMapper``) and bilm-tf (``UnicodeCharsVocabulary``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch

from .configuration_elmo import check_size
from .messages import described, quoted

# Raw ids before the +1 shift (bilm-tf's UnicodeCharsVocabulary).
BEGIN_OF_SENTENCE_CHAR = 256
END_OF_SENTENCE_CHAR = 257
BEGIN_OF_WORD_CHAR = 258
END_OF_WORD_CHAR = 259
PADDING_CHAR = 260
#: Shifted ids (what the model reads): 0 pads a token slot, then byte b is b + 1 and the markers
#: 257..261, so the char embedding has N_CHAR_IDS rows; PADDING_ID pads a word's character slots.
N_CHAR_IDS = 262
PADDING_ID = PADDING_CHAR + 1

#: Tokens longer than this many characters are refused by default: ELMo sees only their first
#: ``max_characters_per_token - 2`` bytes, and such "tokens" are almost always unsplit junk.
DEFAULT_MAX_TOKEN_CHARS = 100

#: The sentence markers as token strings (``char_ids_to_token`` of their ids).
SENTENCE_START, SENTENCE_END = "<S>", "</S>"

#: ``ElmoTokenizer.get_vocab``: each char id's name.
CHAR_ID_NAMES = {
    "<pad>": 0,
    **{f"<0x{byte:02X}>": byte + 1 for byte in range(256)},
    SENTENCE_START: BEGIN_OF_SENTENCE_CHAR + 1,
    SENTENCE_END: END_OF_SENTENCE_CHAR + 1,
    "<bow>": BEGIN_OF_WORD_CHAR + 1,
    "<eow>": END_OF_WORD_CHAR + 1,
    "<char_pad>": PADDING_ID,
}


def checked_width(max_characters_per_token: Any) -> int:
    """``max_characters_per_token`` checked against the bounds ``ElmoConfig`` allows."""
    return check_size("max_characters_per_token", max_characters_per_token, where="")


def _marker_ids(char: int, max_characters_per_token: int) -> list[int]:
    ids = [PADDING_CHAR] * checked_width(max_characters_per_token)
    ids[:3] = [BEGIN_OF_WORD_CHAR, char, END_OF_WORD_CHAR]
    return [i + 1 for i in ids]


def begin_of_sentence_ids(max_characters_per_token: int = 50) -> list[int]:
    """The shifted character ids of ``<S>``."""
    return _marker_ids(BEGIN_OF_SENTENCE_CHAR, max_characters_per_token)


def end_of_sentence_ids(max_characters_per_token: int = 50) -> list[int]:
    """The shifted character ids of ``</S>``."""
    return _marker_ids(END_OF_SENTENCE_CHAR, max_characters_per_token)


def add_sentence_markers(
    ids: torch.Tensor,
    lengths: torch.Tensor,
    begin: int | Sequence[int] | torch.Tensor | None = None,
    end: int | Sequence[int] | torch.Tensor | None = None,
    fill: int = 0,
) -> torch.Tensor:
    """Wrap every sentence of a batch in ``<S>`` ... ``</S>``: ``ids`` (B, T, ...) -> (B, T+2, ...).

    Row b becomes ``begin``, its ``lengths[b]`` tokens ``ids[b, :lengths[b]]``, ``end``, then the
    rest of the row (``ids``' own padding, and ``fill`` in the one step added at the end). The one
    definition of where the markers go, used by ``ElmoModel`` (char ids (B, T, W)), the export
    graph, and the LM's training data (char or word ids, and the labels, ``fill=-100``).

    Args:
        ids: (B, T) or (B, T, W) left-aligned ids; ``lengths`` (B,) the tokens of each row.
        begin, end: the markers' ids, one step's worth (a word id, or W char ids); default the
            char ids of ``<S>`` and ``</S>`` (``begin_of_sentence_ids``) for (B, T, W) char ids.
        fill: the id of the step added after the last one (padding).
    """
    batch, steps, *step_shape = ids.shape
    width = step_shape[-1] if step_shape else None
    if begin is None or end is None:
        if width is None:
            raise ValueError("add_sentence_markers needs begin and end ids for (B, T) ids; the defaults are char ids")
        begin = begin_of_sentence_ids(width) if begin is None else begin
        end = end_of_sentence_ids(width) if end is None else end
    begin = torch.as_tensor(begin, dtype=ids.dtype, device=ids.device)
    end = torch.as_tensor(end, dtype=ids.dtype, device=ids.device)
    out = torch.cat([begin.expand(batch, 1, *step_shape), ids, ids.new_full((batch, 1, *step_shape), fill)], dim=1)
    positions = torch.arange(steps + 2, device=ids.device).unsqueeze(0)  # (1, T+2)
    at_end = (positions == (lengths + 1).unsqueeze(1)).view(batch, steps + 2, *([1] * len(step_shape)))
    return torch.where(at_end, end, out)


def checked_token(token: Any) -> str:
    """``token``, refused unless it is a str: the check of ``token_to_char_ids``, and of ``batch_to_ids`` before its
    cache (which cannot hash a list)."""
    if not isinstance(token, str):
        raise TypeError(f"tokens must be str, got {described(token)}")
    return token


#: How the refusal of a token longer than ``max_token_chars`` ends (an export's wrappers say their own remedy).
TOO_LONG_REMEDY = (
    "Split it, or pass max_token_chars=None (--max-token-chars none) to truncate it as the original implementation does"
)


def token_to_char_ids(
    token: str,
    max_characters_per_token: int = 50,
    max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
) -> list[int]:
    """The shifted character ids of one token (a list of ``max_characters_per_token`` ints):
    ``"<S>"`` and ``"</S>"`` are the sentence markers (``begin_of_sentence_ids``), as in the original.

    Raises ``ValueError`` for a token longer than ``max_token_chars`` characters (``None``
    accepts any length and truncates like the original) and for text that has no UTF-8 form
    (lone surrogates, e.g. from ``errors="surrogateescape"`` decoding).
    """
    token = checked_token(token)
    max_characters_per_token = checked_width(max_characters_per_token)
    if max_token_chars is not None and len(token) > max_token_chars:
        raise ValueError(
            f"token of {len(token)} characters ({token[:20]!r}...) is longer than "
            f"max_token_chars={max_token_chars}; ELMo reads only its first "
            f"{max_characters_per_token - 2} UTF-8 bytes. {TOO_LONG_REMEDY}"
        )
    if token == SENTENCE_START:
        return begin_of_sentence_ids(max_characters_per_token)
    if token == SENTENCE_END:
        return end_of_sentence_ids(max_characters_per_token)
    body = list(utf8_of(token, "token")[: max_characters_per_token - 2])
    ids = [BEGIN_OF_WORD_CHAR] + body + [END_OF_WORD_CHAR]
    ids += [PADDING_CHAR] * (max_characters_per_token - len(ids))
    return [i + 1 for i in ids]


def utf8_of(text: str, what: str) -> bytes:
    """``text`` in UTF-8, or a ``ValueError`` naming the character that has none."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(
            f"{what} {quoted(text)} contains {text[err.start]!r} (a lone surrogate), which has no UTF-8 "
            "form; decode the input text with errors='replace' or 'strict'"
        ) from None


def batch_to_ids(
    sentences: Iterable[Iterable[str]],
    max_characters_per_token: int = 50,
    max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
    allow_empty: bool = False,
) -> torch.Tensor:
    """Character ids of a batch of tokenised sentences: a LongTensor (B, T, 50), T the longest.

    ``sentences`` and each sentence may be any iterable (a list, a tuple, a generator), as in
    AllenNLP; a sentence that is a str is refused (``words_of``), not read as one-character
    tokens. Shorter sentences are padded with all-zero tokens. An empty batch is an error, and so
    is an empty sentence (it has no tokens to embed) unless ``allow_empty``: then its row is all
    padding (T is 0 if every sentence is empty), as ``ElmoTokenizer`` encodes ``""``. An empty token (``""``) is
    an error, as in ``ElmoTokenizer`` and ``embed_sentences`` (AllenNLP reads it as a word of no characters). See
    ``token_to_char_ids`` for the per-token checks; their errors name the sentence and token.
    """
    if isinstance(sentences, (str, bytes)) or not isinstance(sentences, Iterable):
        raise TypeError(
            f"batch_to_ids expects a list of token lists, e.g. [['Hello', 'world']], got {described(sentences)}"
        )
    batch = list(sentences)
    if len(batch) > 0 and isinstance(batch[0], str):
        raise TypeError("batch_to_ids expects a list of token lists, e.g. [['Hello', 'world']]")
    if len(batch) == 0:
        raise ValueError("empty batch: batch_to_ids needs at least one sentence")
    rows = [words_of(sentence, f"sentence {row} of the batch") for row, sentence in enumerate(batch)]
    max_characters_per_token = checked_width(max_characters_per_token)
    longest = max(len(s) for s in rows)
    ids = np.zeros((len(rows), longest, max_characters_per_token), dtype=np.int64)
    for row, sentence in enumerate(rows):
        if len(sentence) == 0 and not allow_empty:
            raise ValueError(
                f"sentence {row} of the batch is empty: it has no tokens to embed; drop it, or pass "
                "allow_empty=True to keep it as a row of padding (hf_elmo.Elmo gives it zero vectors and a False "
                "mask, as AllenNLP does)"
            )
        for col, token in enumerate(sentence):
            if isinstance(token, str) and not token:
                raise ValueError(
                    f"sentence {row}, token {col} is empty: there is no word to embed (AllenNLP's batch_to_ids "
                    "silently reads it as a word of no characters); drop it, e.g. split text with str.split(), not "
                    "str.split(' ')"
                )
            try:
                ids[row, col] = _char_id_row(checked_token(token), max_characters_per_token, max_token_chars)
            except (TypeError, ValueError) as err:  # re-raised as the base class (a subclass may take other arguments)
                kind = TypeError if isinstance(err, TypeError) else ValueError
                raise kind(f"sentence {row}, token {col}: {err}") from None
    return torch.from_numpy(ids)


@functools.lru_cache(maxsize=1 << 16)
def _char_id_row(token: str, max_characters_per_token: int, max_token_chars: int | None) -> np.ndarray:
    """``token_to_char_ids`` as a read-only array, memoised: running text repeats its words. Ids are
    below ``N_CHAR_IDS``, so int16 holds them in a quarter of int64's memory (``batch_to_ids`` widens them)."""
    row = np.array(token_to_char_ids(token, max_characters_per_token, max_token_chars), dtype=np.int16)
    row.flags.writeable = False
    return row


def char_ids_to_token(ids: Sequence[int]) -> str:
    """The token that ``token_to_char_ids`` made ``ids`` from: its text, ``<S>`` / ``</S>`` for the
    sentence markers, ``""`` for a padding token (all zeros).

    A token cut to ``max_characters_per_token - 2`` bytes mid-character ends in U+FFFD.
    """
    raw = [int(i) - 1 for i in ids]
    if all(i == -1 for i in raw):
        return ""
    if raw[0] != BEGIN_OF_WORD_CHAR or END_OF_WORD_CHAR not in raw:
        raise ValueError(f"not ELMo character ids of a token (begin-of-word id first, then bytes): {list(ids)[:8]}...")
    body = raw[1 : raw.index(END_OF_WORD_CHAR)]
    if body == [BEGIN_OF_SENTENCE_CHAR]:
        return SENTENCE_START
    if body == [END_OF_SENTENCE_CHAR]:
        return SENTENCE_END
    if any(not 0 <= i < 256 for i in body):
        raise ValueError(f"not ELMo character ids of a token (a byte id out of range): {list(ids)[:8]}...")
    return bytes(body).decode("utf-8", errors="replace")


def words_of(sentence: Any, where: str) -> list[Any]:
    """``sentence`` as the list of its words: any iterable of them (a list, a tuple, a generator)
    but a str or bytes, which is refused as anything else is, naming ``where`` (e.g. ``"sentence 3"``):
    how ``batch_to_ids``, the tokenizer (``is_split_into_words=True``) and ``embed_sentences`` read
    a sentence of a batch."""
    if isinstance(sentence, (str, bytes)) or not isinstance(sentence, Iterable):
        raise TypeError(f"{where} is {described(sentence)}, not a list of words")
    return list(sentence)
