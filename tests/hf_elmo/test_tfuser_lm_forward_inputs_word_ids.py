"""``ElmoForBidirectionalLM``'s refusal of an argument says what its input_ids are: char ids, or for
``token_embedding="word"`` word ids that ``collate_sentences(..., word_inputs=True)`` builds (was:
"input_ids their char ids" for both)."""

from __future__ import annotations

import re

import pytest
import torch

from hf_elmo import ElmoForBidirectionalLM
from tests.hf_elmo.test_heads import tiny_config

TAKES = (
    "it takes input_ids, lengths, labels, initial_state, full_softmax, return_dict, output_hidden_states, "
    "output_attentions (the LM scores whole sentences, each <S> tokens </S>: input_ids {ids}, lengths their steps, "
    "labels the ids of their words in its softmax's vocab.txt, which neither a tokenizer nor "
    "DataCollatorForLanguageModeling gives; hf_elmo.training.data.collate_sentences(sentences, "
    "Vocabulary.from_file(MODEL/vocab.txt){collated}) builds all three, as README's Perplexity in Python shows)"
)


@pytest.mark.parametrize(
    ("token_embedding", "ids", "collated", "input_ids"),
    [
        ("char_cnn", "their char ids", "", torch.ones(1, 3, 50, dtype=torch.long)),
        ("word", "their word ids (token_embedding='word')", ", word_inputs=True", torch.ones(1, 3, dtype=torch.long)),
    ],
)
def test_the_lm_says_which_ids_it_reads_when_refusing_an_argument(token_embedding, ids, collated, input_ids):
    lm = ElmoForBidirectionalLM(tiny_config(vocab_size=5, softmax="full", token_embedding=token_embedding)).eval()
    message = "ElmoForBidirectionalLM.forward() is missing lengths: " + TAKES.format(ids=ids, collated=collated)
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        lm(input_ids=input_ids, labels=torch.ones(1, 3, dtype=torch.long))
