"""convert_ids_to_tokens, decode and batch_decode on ids of the other shapes a transformers user passes them:
a batch (B, T, W) to convert_ids_to_tokens is one line saying what to pass (was int()'s bare TypeError from deep
inside), one sentence (T, W) to batch_decode is a batch of one with transformers' warning (was "'int' object is
not iterable"), and a batch whose first sentence has no words decodes (was int()'s TypeError)."""

from __future__ import annotations

import pytest
from transformers.testing_utils import CaptureLogger

from hf_elmo import ElmoTokenizer, tokenization_elmo


@pytest.fixture
def batch():
    return ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt")["input_ids"]


def test_convert_ids_to_tokens_of_a_batch_says_to_convert_each_sentence(batch):
    with pytest.raises(ValueError) as refused:
        ElmoTokenizer().convert_ids_to_tokens(batch)
    assert str(refused.value) == (
        "convert_ids_to_tokens takes one word's char ids (W,) or one sentence's (T, W), got a batch's (B, T, W): "
        "convert each sentence (convert_ids_to_tokens(ids[i])), or batch_decode(ids) for their texts"
    )


@pytest.mark.parametrize("rows", ["sentence", "word"])
def test_batch_decode_of_one_sentence_or_word_is_a_batch_of_one_with_transformers_warning(rows, batch):
    ids, text = (batch[0], "a b c") if rows == "sentence" else (batch[0][0], "a")
    type(tokenization_elmo._logger).warning_once.cache_clear()
    with CaptureLogger(tokenization_elmo._logger) as log:
        assert ElmoTokenizer().batch_decode(ids) == [text]
    assert "Passing a single sequence to `batch_decode` is deprecated" in log.out


def test_a_batch_whose_first_sentence_has_no_words_decodes_each_sentence():
    tokenizer = ElmoTokenizer()
    ids = tokenizer(["", "a b"])["input_ids"]  # ragged lists: [[], [row, row]]
    assert tokenizer.decode(ids) == tokenizer.batch_decode(ids) == ["", "a b"]
