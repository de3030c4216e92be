"""A batch of transformers' ``DataCollatorForLanguageModeling(tokenizer, mlm=False)`` given to
``ElmoForBidirectionalLM`` is refused in one line that says what the LM reads instead (sentences with
their markers, their lengths, labels of word ids in its softmax's vocab.txt) and what builds it,
``collate_sentences`` (was: "takes no attention_mask", and then Python's "missing 1 required
positional argument: 'lengths'", neither saying what to pass)."""

from __future__ import annotations

import re

import pytest
import torch
from transformers import DataCollatorForLanguageModeling

from hf_elmo import ElmoForBidirectionalLM, ElmoModel, ElmoTokenizer
from hf_elmo.training.data import collate_sentences
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.test_heads import tiny_config

TAKES = (
    "it takes input_ids, lengths, labels, initial_state, full_softmax, return_dict, output_hidden_states, "
    "output_attentions (the LM scores whole sentences, each <S> tokens </S>: input_ids their char ids, lengths their "
    "steps, labels the ids of their words in its softmax's vocab.txt, which neither a tokenizer nor "
    "DataCollatorForLanguageModeling gives; hf_elmo.training.data.collate_sentences(sentences, "
    "Vocabulary.from_file(MODEL/vocab.txt)) builds all three, as README's Perplexity in Python shows)"
)
WORDS = ["<S>", "</S>", "<UNK>", "the", "cat", "sat", "."]


@pytest.fixture(scope="module")
def lm() -> ElmoForBidirectionalLM:
    torch.manual_seed(0)
    return ElmoForBidirectionalLM(tiny_config(vocab_size=len(WORDS), softmax="full")).eval()


@pytest.fixture(scope="module")
def collated() -> dict[str, torch.Tensor]:
    tokenizer = ElmoTokenizer()
    return dict(DataCollatorForLanguageModeling(tokenizer, mlm=False)([tokenizer("the cat sat ."), tokenizer("a cat")]))


def test_a_causal_lm_collators_batch_is_refused_saying_what_the_lm_reads_and_what_builds_it(lm, collated):
    assert set(collated) == {"input_ids", "attention_mask", "labels"}
    with pytest.raises(
        TypeError, match=f"^{re.escape('ElmoForBidirectionalLM.forward() takes no attention_mask: ' + TAKES)}$"
    ):
        lm(**collated)


def test_the_batch_without_its_attention_mask_is_refused_naming_lengths_and_saying_so_too(lm, collated):
    message = "ElmoForBidirectionalLM.forward() is missing lengths: " + TAKES
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        lm(input_ids=collated["input_ids"], labels=collated["labels"])


def test_what_the_refusal_names_builds_a_batch_the_lm_takes(lm):
    batch = collate_sentences([["the", "cat", "sat", "."], ["a", "cat"]], Vocabulary(WORDS))
    out = lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
    assert int(out.n_targets) == 5 + 3 and torch.isfinite(out.loss)


def test_elmo_models_missing_input_is_refused_in_one_line_with_what_it_reads():
    message = (
        "ElmoModel.forward() is missing input_ids: it takes input_ids, attention_mask, stateful, "
        "return_dict, output_hidden_states, output_attentions (ELMo reads one sentence a row of char ids: no "
        "token_type_ids, position_ids or inputs_embeds)"
    )
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        ElmoModel(tiny_config())(attention_mask=torch.ones(1, 2, dtype=torch.long))
