"""What the README says of Trainer's token count: it counts input_ids' elements, 50 char ids a word
for ELMo, and "non_padding" counts the words. A transformers that counts otherwise fails this test,
so that the README's line is brought up to date."""

from __future__ import annotations

import pytest
from transformers import DataCollatorForTokenClassification, Trainer

from hf_elmo import ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config, training_args


# the batch: 2 sentences padded to 3 positions, 5 words
@pytest.mark.parametrize("count, tokens", [("all", 2 * 3 * 50), ("non_padding", 5)])
def test_trainer_counts_50_char_ids_a_word_as_tokens_unless_non_padding(tmp_path, one_thread, count, tokens):
    tokenizer = ElmoTokenizer()
    sentences = [(["Alice", "met", "Bob"], [1, 0, 1]), (["Hi", "Carol"], [0, 1])]
    dataset = [dict(tokenizer(words, is_split_into_words=True), labels=labels) for words, labels in sentences]
    model = ElmoForTokenClassification(tiny_config(num_labels=2))
    args = training_args(tmp_path, max_steps=1, per_device_train_batch_size=2, include_num_input_tokens_seen=count)
    trainer = Trainer(
        model=model, args=args, train_dataset=dataset, data_collator=DataCollatorForTokenClassification(tokenizer)
    )
    trainer.train()
    assert trainer.state.num_input_tokens_seen == tokens
    assert trainer.state.total_flos == 6 * (2 * 3 * 50) * model.num_parameters(exclude_embeddings=True)
