"""``batch_to_ids`` refuses an empty token, as ``ElmoTokenizer`` and ``embed_sentences`` refuse an empty word
(AllenNLP's reads it as a word of no characters: a vector for nothing, without a word)."""

from __future__ import annotations

import pytest

from hf_elmo import batch_to_ids


def test_an_empty_token_is_refused_in_one_line_naming_its_place():
    """Was: accepted, encoded as a word of no characters (its row of ids not all padding, so the model embedded it)."""
    with pytest.raises(ValueError, match=r"^sentence 1, token 2 is empty: there is no word to embed \(") as refused:
        batch_to_ids([["a"], ["a", "b", ""]])
    assert "\n" not in str(refused.value)


def test_an_empty_sentence_is_still_kept_as_padding_when_allowed():
    assert batch_to_ids([["a"], []], allow_empty=True)[1].count_nonzero() == 0
