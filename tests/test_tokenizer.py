"""Character ids and the ElmoTokenizer."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoTokenizer, batch_to_ids
from hf_elmo.tokenization_elmo import begin_of_sentence_ids, end_of_sentence_ids, token_to_char_ids


def test_token_ids_are_shifted_utf8_bytes_wrapped_in_word_markers():
    ids = token_to_char_ids("añ")
    assert ids[:5] == [259, ord("a") + 1, 0xC3 + 1, 0xB1 + 1, 260]
    assert ids[5:] == [261] * 45 and len(ids) == 50


def test_sentence_markers_are_whole_tokens():
    assert begin_of_sentence_ids()[:4] == [259, 257, 260, 261]
    assert end_of_sentence_ids()[:4] == [259, 258, 260, 261]


def test_long_tokens_are_cut_at_48_bytes_even_mid_character():
    ids = token_to_char_ids("東" * 20)  # 60 bytes
    assert ids[0] == 259 and ids[49] == 260
    assert ids[1:49] == [b + 1 for b in ("東" * 20).encode("utf-8")[:48]]


def test_a_token_that_encodes_to_nothing_still_gets_word_markers():
    assert token_to_char_ids("")[:3] == [259, 260, 261]


def test_batch_is_padded_with_all_zero_tokens():
    ids = batch_to_ids([["a", "b", "c"], ["d"]])
    assert ids.shape == (2, 3, 50) and ids.dtype == torch.long
    assert not ids[1, 1:].any() and ids[1, 0].all()


def test_tokenizer_splits_raw_strings_on_whitespace_and_returns_a_mask():
    tokenizer = ElmoTokenizer()
    encoded = tokenizer(["The cat  sat", "Hi"], return_tensors="pt")
    assert encoded["input_ids"].shape == (2, 3, 50)
    assert encoded["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert torch.equal(encoded["input_ids"], batch_to_ids([["The", "cat", "sat"], ["Hi"]]))


def test_tokenizer_takes_pretokenised_words_single_or_batched():
    tokenizer = ElmoTokenizer()
    single = tokenizer(["New York", "is"], is_split_into_words=True)
    assert len(single["input_ids"]) == 2 and single["attention_mask"] == [1, 1]
    batch = tokenizer([["New York"], ["a", "b"]], is_split_into_words=True, return_tensors="pt")
    assert batch["input_ids"].shape == (2, 2, 50)


@pytest.mark.parametrize(
    "sentences, message",
    [
        ([], "empty batch"),
        ([["a"], []], "sentence 1 of the batch is empty"),
        ([["ok", "x" * 500]], "sentence 0, token 1: token of 500 characters"),
        ([["bad\udcff"]], "lone surrogate"),
    ],
)
def test_bad_input_gets_an_error_that_names_the_problem(sentences, message):
    with pytest.raises(ValueError, match=message):
        batch_to_ids(sentences)


def test_long_token_limit_can_be_lifted_to_truncate_like_the_original():
    ids = batch_to_ids([["x" * 500]], max_token_chars=None)
    assert ids[0, 0, 1:49].tolist() == [ord("x") + 1] * 48


def test_a_flat_list_of_words_is_refused_by_batch_to_ids():
    with pytest.raises(TypeError, match="list of token lists"):
        batch_to_ids(["Hello", "world"])
