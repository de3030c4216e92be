"""An ``ElmoForBidirectionalLM`` given the other kind of input ids (a word-input LM,
``token_embedding="word"``, given the char ids that ``collate_sentences`` makes by default, or a char
LM given word ids) is refused in one line saying what it reads and how to make them (was: the shape
alone, "input_ids must have shape (batch, steps), got (1, 4, 50)")."""

from __future__ import annotations

import re

import pytest
import torch

from hf_elmo import ElmoForBidirectionalLM
from hf_elmo.training.data import collate_sentences
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.test_heads import tiny_config

VOCABULARY = Vocabulary(["<S>", "</S>", "<UNK>", "a", "b"])


def lm(token_embedding: str) -> ElmoForBidirectionalLM:
    torch.manual_seed(0)
    config = tiny_config(vocab_size=len(VOCABULARY), softmax="full", token_embedding=token_embedding)
    return ElmoForBidirectionalLM(config).eval()


def test_a_word_input_lm_given_char_ids_says_to_collate_word_ids():
    batch = collate_sentences([["a", "b"]], VOCABULARY)
    message = (
        "input_ids must have shape (batch, steps), got (1, 4, 50): this LM reads word ids (token_embedding='word'), "
        "not char ids; make them with collate_sentences(sentences, vocabulary, word_inputs=True)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        lm("word")(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
    words = collate_sentences([["a", "b"]], VOCABULARY, word_inputs=True)
    assert torch.isfinite(lm("word")(input_ids=words.input_ids, lengths=words.lengths, labels=words.labels).loss)


def test_a_char_lm_given_word_ids_says_to_collate_char_ids():
    batch = collate_sentences([["a", "b"]], VOCABULARY, word_inputs=True)
    message = (
        "input_ids must have shape (batch, steps, 50), got (1, 4): this LM reads 50 char ids a token; make them with "
        "collate_sentences(sentences, vocabulary, max_characters_per_token=50)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        lm("char_cnn")(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
