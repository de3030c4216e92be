"""ELMo's character ids and the ``ElmoTokenizer``.

A token becomes ``max_characters_per_token`` ids: its UTF-8 bytes cut to ``max - 2``, wrapped in
begin/end-of-word ids and padded; every id is then shifted by +1 so that 0 means padding. A
padding token is all zeros. Sentence markers ``<S>``/``</S>`` are added by the model itself.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from transformers import BatchEncoding, PreTrainedTokenizer

# Raw ids before the +1 shift (bilm-tf's UnicodeCharsVocabulary).
BEGIN_OF_SENTENCE_CHAR = 256
END_OF_SENTENCE_CHAR = 257
BEGIN_OF_WORD_CHAR = 258
END_OF_WORD_CHAR = 259
PADDING_CHAR = 260

#: Tokens longer than this many characters are refused by default: ELMo sees only their first
#: ``max_characters_per_token - 2`` bytes, and such "tokens" are almost always unsplit junk.
DEFAULT_MAX_TOKEN_CHARS = 100


def _marker_ids(char: int, max_characters_per_token: int) -> List[int]:
    ids = [PADDING_CHAR] * max_characters_per_token
    ids[:3] = [BEGIN_OF_WORD_CHAR, char, END_OF_WORD_CHAR]
    return [i + 1 for i in ids]


def begin_of_sentence_ids(max_characters_per_token: int = 50) -> List[int]:
    """The shifted character ids of ``<S>``."""
    return _marker_ids(BEGIN_OF_SENTENCE_CHAR, max_characters_per_token)


def end_of_sentence_ids(max_characters_per_token: int = 50) -> List[int]:
    """The shifted character ids of ``</S>``."""
    return _marker_ids(END_OF_SENTENCE_CHAR, max_characters_per_token)


def token_to_char_ids(
    token: str,
    max_characters_per_token: int = 50,
    max_token_chars: Optional[int] = DEFAULT_MAX_TOKEN_CHARS,
) -> List[int]:
    """The shifted character ids of one token (a list of ``max_characters_per_token`` ints).

    Raises ``ValueError`` for a token longer than ``max_token_chars`` characters (``None``
    accepts any length and truncates like the original) and for text that has no UTF-8 form
    (lone surrogates, e.g. from ``errors="surrogateescape"`` decoding).
    """
    if not isinstance(token, str):
        raise TypeError(f"tokens must be str, got {type(token).__name__}: {token!r}")
    if max_token_chars is not None and len(token) > max_token_chars:
        raise ValueError(
            f"token of {len(token)} characters ({token[:20]!r}...) is longer than "
            f"max_token_chars={max_token_chars}; ELMo reads only its first "
            f"{max_characters_per_token - 2} UTF-8 bytes. Split it, or pass max_token_chars=None "
            "to truncate it as the original implementation does"
        )
    try:
        encoded = token.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(
            f"token {token!r} contains {token[err.start]!r} (a lone surrogate), which has no UTF-8 "
            "form; decode the input text with errors='replace' or 'strict'"
        ) from None
    body = list(encoded[: max_characters_per_token - 2])
    ids = [BEGIN_OF_WORD_CHAR] + body + [END_OF_WORD_CHAR]
    ids += [PADDING_CHAR] * (max_characters_per_token - len(ids))
    return [i + 1 for i in ids]


def batch_to_ids(
    sentences: Sequence[Sequence[str]],
    max_characters_per_token: int = 50,
    max_token_chars: Optional[int] = DEFAULT_MAX_TOKEN_CHARS,
) -> torch.Tensor:
    """Character ids of a batch of tokenised sentences: a LongTensor (B, T, 50), T the longest.

    Shorter sentences are padded with all-zero tokens. An empty batch or an empty sentence is
    an error (it has no tokens to embed); see ``token_to_char_ids`` for the per-token checks.
    """
    if isinstance(sentences, str) or (len(sentences) > 0 and isinstance(sentences[0], str)):
        raise TypeError("batch_to_ids expects a list of token lists, e.g. [['Hello', 'world']]")
    if len(sentences) == 0:
        raise ValueError("empty batch: batch_to_ids needs at least one sentence")
    longest = max(len(s) for s in sentences)
    ids = np.zeros((len(sentences), longest, max_characters_per_token), dtype=np.int64)
    for row, sentence in enumerate(sentences):
        if len(sentence) == 0:
            raise ValueError(f"sentence {row} of the batch is empty: it has no tokens to embed")
        for col, token in enumerate(sentence):
            try:
                ids[row, col] = _char_id_row(token, max_characters_per_token, max_token_chars)
            except ValueError as err:
                raise ValueError(f"sentence {row}, token {col}: {err}") from None
    return torch.from_numpy(ids)


@functools.lru_cache(maxsize=1 << 16)
def _char_id_row(token: str, max_characters_per_token: int, max_token_chars: Optional[int]) -> np.ndarray:
    """``token_to_char_ids`` as a read-only array, memoised: running text repeats its words."""
    row = np.array(token_to_char_ids(token, max_characters_per_token, max_token_chars), dtype=np.int64)
    row.flags.writeable = False
    return row


class ElmoTokenizer(PreTrainedTokenizer):
    """Turns words into ELMo character ids.

    ``tokenizer(texts)`` splits raw strings on whitespace; ``tokenizer(words,
    is_split_into_words=True)`` takes pre-tokenised sentences. It returns ``input_ids``
    (B, T, max_characters_per_token) and ``attention_mask`` (B, T), as lists or, with
    ``return_tensors="pt"``, tensors. There is no vocabulary: ids are UTF-8 bytes.
    """

    model_input_names = ["input_ids", "attention_mask"]
    vocab_files_names: Dict[str, str] = {}

    def __init__(
        self,
        max_characters_per_token: int = 50,
        max_token_chars: Optional[int] = DEFAULT_MAX_TOKEN_CHARS,
        **kwargs: Any,
    ) -> None:
        self.max_characters_per_token = max_characters_per_token
        self.max_token_chars = max_token_chars
        super().__init__(
            max_characters_per_token=max_characters_per_token,
            max_token_chars=max_token_chars,
            **kwargs,
        )

    @property
    def vocab_size(self) -> int:
        return 262

    def get_vocab(self) -> Dict[str, int]:
        return {}

    def _tokenize(self, text: str, **kwargs: Any) -> List[str]:
        return text.split()

    def _convert_token_to_id(self, token: str) -> int:
        raise NotImplementedError("ELMo has no word ids: call the tokenizer to get char ids")

    def save_vocabulary(self, save_directory: str, filename_prefix: Optional[str] = None) -> Tuple[str, ...]:
        return ()

    def __call__(  # type: ignore[override]
        self,
        text: Union[str, Sequence[str], Sequence[Sequence[str]]],
        is_split_into_words: bool = False,
        padding: Union[bool, str] = True,
        return_tensors: Optional[str] = None,
        **kwargs: Any,
    ) -> BatchEncoding:
        """Encode one sentence or a batch; see the class docstring.

        Batches are always padded to their longest sentence (ELMo's ids are a dense 3-D array);
        ``padding`` is accepted for API compatibility.
        """
        unused = {k for k, v in kwargs.items() if v not in (None, False)}
        if unused:
            raise TypeError(f"ElmoTokenizer does not support {sorted(unused)}")
        if return_tensors not in (None, "pt"):
            raise ValueError(f"ElmoTokenizer supports return_tensors=None or 'pt', got {return_tensors!r}")
        single = isinstance(text, str) or (
            is_split_into_words and len(text) > 0 and isinstance(text[0], str)
        )
        batch = [text] if single else list(text)
        sentences = [s.split() if not is_split_into_words else list(s) for s in batch]
        if not is_split_into_words and any(not isinstance(s, str) for s in batch):
            raise TypeError("pass pre-tokenised sentences with is_split_into_words=True")
        ids = batch_to_ids(sentences, self.max_characters_per_token, self.max_token_chars)
        mask = (ids > 0).any(dim=-1).long()
        if return_tensors == "pt":
            data = {"input_ids": ids, "attention_mask": mask}
        elif single:
            data = {"input_ids": ids[0].tolist(), "attention_mask": mask[0].tolist()}
        else:
            data = {"input_ids": ids.tolist(), "attention_mask": mask.tolist()}
        return BatchEncoding(data, tensor_type=None)
