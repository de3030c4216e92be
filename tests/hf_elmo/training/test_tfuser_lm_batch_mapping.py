"""``collate_sentences``'s ``LMBatch`` is a mapping of exactly the LM's inputs (input_ids, lengths,
labels), as transformers' ``BatchEncoding`` is of a model's, so ``lm(**batch)`` runs (was: "argument
after ** must be a mapping, not LMBatch"); its attributes stay, and the pretraining workers still
hand it over whole."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForBidirectionalLM
from hf_elmo.training.data import LMBatch, SentenceBatcher, collate_sentences, collated_batches
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.test_heads import tiny_config

VOCABULARY = Vocabulary(["<S>", "</S>", "<UNK>", "the", "cat", "sat", "."])
SENTENCES = [["the", "cat", "sat", "."], ["a", "cat"]]


@pytest.mark.parametrize("token_embedding", ["char_cnn", "word"])
def test_the_lm_takes_a_collated_batch_with_double_star(token_embedding):
    torch.manual_seed(0)
    config = tiny_config(vocab_size=len(VOCABULARY), softmax="full", token_embedding=token_embedding)
    lm = ElmoForBidirectionalLM(config).eval()
    batch = collate_sentences(SENTENCES, VOCABULARY, word_inputs=token_embedding == "word")
    with torch.no_grad():
        out = lm(**batch)
        named = lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
    assert torch.equal(out.loss, named.loss) and int(out.n_targets) == 5 + 3


def test_the_batch_is_a_mapping_of_the_lm_inputs_alone_and_keeps_its_attributes():
    batch = collate_sentences(SENTENCES, VOCABULARY)
    assert list(batch) == ["input_ids", "lengths", "labels"] and len(batch) == 3
    assert batch["lengths"] is batch.lengths and batch.lengths.tolist() == [6, 4]
    assert "n_words" not in batch and batch.n_words == 6
    with pytest.raises(KeyError):
        batch["n_words"]


def test_the_collating_workers_hand_over_the_batch_whole():
    batcher = SentenceBatcher([" ".join(s) for s in SENTENCES * 8], VOCABULARY, tokens_per_batch=64)
    batches = batcher.epoch_batches(0)
    collated = list(collated_batches(batcher, batches, workers=1))
    assert all(type(batch) is LMBatch for batch in collated)
    assert [b.n_words for b in collated] == [batcher.collate(indices).n_words for indices in batches]
