"""``batch_to_ids`` refuses an empty token, as ``ElmoTokenizer`` and ``embed_sentences`` refuse an empty word
(AllenNLP's reads it as a word of no characters: a vector for nothing, without a word)."""

from __future__ import annotations

import pytest

from hf_elmo import Elmo, ElmoModel, batch_to_ids
from tests.hf_elmo.test_heads import tiny_config


def test_an_empty_token_is_refused_in_one_line_naming_its_place():
    """Was: accepted, encoded as a word of no characters (its row of ids not all padding, so the model embedded it)."""
    with pytest.raises(ValueError, match=r"^sentence 1, token 2 is empty: there is no word to embed \(") as refused:
        batch_to_ids([["a"], ["a", "b", ""]])
    assert "\n" not in str(refused.value)


def test_an_empty_sentence_is_still_kept_as_padding_when_allowed():
    assert batch_to_ids([["a"], []], allow_empty=True)[1].count_nonzero() == 0


def test_an_empty_word_of_vocab_to_cache_is_refused_naming_its_index():
    """Was, since batch_to_ids refuses an empty token: "sentence 2, token 0 is empty", naming no vocabulary."""
    model = ElmoModel(tiny_config())
    model.post_init()
    with pytest.raises(ValueError, match=r"^vocab_to_cache word 1 is empty: ELMo has no word to embed there "):
        Elmo(None, None, 1, module=model, vocab_to_cache=["@@PADDING@@", "", "a"])
