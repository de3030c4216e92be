"""Two ``LMBatch``es compare equal when their ``n_words`` are and their tensors have the same
shapes, devices and values: ``collate_sentences(s, v) == collate_sentences(s, v)`` is True (was:
"Boolean value of Tensor with more than one value is ambiguous", from the dataclass's ``==``)."""

from __future__ import annotations

import dataclasses

import pytest

from hf_elmo.training.data import collate_sentences
from hf_elmo.training.vocab import Vocabulary

VOCABULARY = Vocabulary(["<S>", "</S>", "<UNK>", "the", "cat", "sat", "."])
SENTENCES = [["the", "cat", "sat", "."], ["a", "cat"]]


@pytest.mark.parametrize("word_inputs", [False, True])
def test_two_collations_of_the_same_sentences_are_equal(word_inputs):
    batch = collate_sentences(SENTENCES, VOCABULARY, word_inputs=word_inputs)
    again = collate_sentences(SENTENCES, VOCABULARY, word_inputs=word_inputs)
    assert batch == again and not batch != again and batch == batch


def test_batches_of_other_sentences_or_inputs_differ():
    batch = collate_sentences(SENTENCES, VOCABULARY)
    assert batch != collate_sentences(SENTENCES[::-1], VOCABULARY)  # other shapes
    assert batch != collate_sentences([["the", "cat", "sat", "the"], ["a", "cat"]], VOCABULARY)  # other values
    assert batch != collate_sentences(SENTENCES, VOCABULARY, word_inputs=True)  # word ids, not char ids
    assert batch != dataclasses.replace(batch, n_words=batch.n_words + 1)
    assert batch != dataclasses.replace(batch, lengths=batch.lengths.to("meta"))  # another device
    assert batch != dict(batch) and batch != "batch"


def test_a_batch_stays_unhashable_as_a_dict_is():
    with pytest.raises(TypeError):
        hash(collate_sentences(SENTENCES, VOCABULARY))
