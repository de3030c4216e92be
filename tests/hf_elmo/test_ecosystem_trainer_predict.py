"""``Trainer.predict`` on the task heads, the way transformers' token- and text-classification examples
use it: labels aligned to ``tokenizer(words, is_split_into_words=True, truncation=True).word_ids()``,
batches of different lengths padded by ``DataCollatorForTokenClassification`` /
``DataCollatorWithPadding`` and concatenated by ``Trainer`` (padding -100). Every sentence's rows of
``predictions`` are the logits of the sentence run alone, and ``label_ids`` its labels, so metrics
computed from them (seqeval's, accuracy) score what the model predicts for each word."""

from __future__ import annotations

import numpy as np
import torch
from transformers import DataCollatorForTokenClassification, DataCollatorWithPadding, Trainer

from hf_elmo import ElmoForSequenceClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config, token_examples, token_model, training_args, with_signal

#: 10 sentences of 2 to 7 words: batches of 4 with different longest sentences.
SENTENCES = token_examples(10, seed=3)


def aligned(tokenizer: ElmoTokenizer, words: list[str], labels: list[int]) -> dict:
    """The examples' alignment: the word's label at each position of a word, -100 elsewhere."""
    encoding = tokenizer(words, is_split_into_words=True, truncation=True)
    encoding["labels"] = [-100 if word is None else labels[word] for word in encoding.word_ids()]
    return dict(encoding)


def alone(model, tokenizer: ElmoTokenizer, words: list[str]) -> np.ndarray:
    """The head's logits for ``words`` run as a batch of one."""
    with torch.no_grad():
        return model(**tokenizer([words], is_split_into_words=True, return_tensors="pt")).logits[0].numpy()


def test_trainer_predict_gives_each_sentences_token_logits_and_labels_across_batches_of_other_lengths(tmp_path):
    tokenizer, model = ElmoTokenizer(), token_model().eval()
    assert len({len(words) for words, _ in SENTENCES}) > 2
    dataset = [aligned(tokenizer, words, labels) for words, labels in SENTENCES]
    args = training_args(tmp_path, per_device_eval_batch_size=4)
    trainer = Trainer(model=model, args=args, data_collator=DataCollatorForTokenClassification(tokenizer))
    predicted = trainer.predict(dataset)
    width = max(len(words) for words, _ in SENTENCES)
    assert predicted.predictions.shape == (len(SENTENCES), width, 3)
    assert np.isfinite(predicted.metrics["test_loss"])
    for row, (words, labels) in enumerate(SENTENCES):
        n = len(words)
        np.testing.assert_allclose(predicted.predictions[row, :n], alone(model, tokenizer, words), atol=1e-5)
        assert predicted.label_ids[row].tolist() == labels + [-100] * (width - n)


def test_trainer_predict_gives_each_sentences_logits_with_the_padding_collator(tmp_path):
    tokenizer = ElmoTokenizer()
    torch.manual_seed(0)
    model = with_signal(ElmoForSequenceClassification(tiny_config(num_labels=2))).eval()
    dataset = [
        dict(tokenizer(words, truncation=True, is_split_into_words=True), label=int(2 in labels))
        for words, labels in SENTENCES
    ]
    args = training_args(tmp_path, per_device_eval_batch_size=4)
    trainer = Trainer(model=model, args=args, data_collator=DataCollatorWithPadding(tokenizer))
    predicted = trainer.predict(dataset)
    assert predicted.predictions.shape == (len(SENTENCES), 2)
    assert predicted.label_ids.tolist() == [int(2 in labels) for _, labels in SENTENCES]
    expected = np.stack([alone(model, tokenizer, words) for words, _ in SENTENCES])
    np.testing.assert_allclose(predicted.predictions, expected, atol=1e-5)
