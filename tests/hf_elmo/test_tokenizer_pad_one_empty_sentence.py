"""pad of one encoding alone whose sentence has no words (``tokenizer("")``, input_ids ``[]``) pads it as any one
encoding alone (was "ElmoTokenizer.pad needs a non-empty list of encodings with input_ids", the sentence read as a
batch of none); with return_tensors its input_ids keep their width, (0, W)."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer


def test_one_sentence_of_no_words_pads_alone():
    tokenizer = ElmoTokenizer()
    assert tokenizer.pad(tokenizer("")) == {"input_ids": [], "attention_mask": []}
    padded = tokenizer.pad(tokenizer(""), padding="max_length", max_length=2)
    assert padded["input_ids"] == [[0] * 50] * 2 and padded["attention_mask"] == [0, 0]
    assert padded.word_ids() == [None, None]


@pytest.mark.parametrize("return_tensors", ["pt", "np"])
def test_with_return_tensors_its_ids_keep_their_width(return_tensors):
    tokenizer = ElmoTokenizer()
    padded = tokenizer.pad(tokenizer(""), return_tensors=return_tensors)
    assert padded["input_ids"].shape == (0, 50) and padded["attention_mask"].shape == (0,)
    assert tokenizer.pad(tokenizer("a b"), return_tensors=return_tensors)["input_ids"].shape == (2, 50)
