"""The task heads run their biLM stateless whatever config.stateful says: a head's outputs do not
depend on the batches before, as a transformers user expects of any model (Trainer's second
evaluation gives the first one's numbers)."""

from __future__ import annotations

import pytest
import torch
from transformers import DataCollatorForTokenClassification, Trainer
from transformers.testing_utils import CaptureLogger

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoTokenizer, modeling_heads
from tests.hf_elmo.test_heads import tiny_config, token_examples, training_args, with_signal


def stateful_head(head):
    torch.manual_seed(0)
    return with_signal(head(tiny_config(num_labels=3, stateful=True))).eval()


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_a_head_on_a_stateful_config_gives_the_same_logits_for_the_same_batch_twice(head):
    model = stateful_head(head)
    batch = ElmoTokenizer()(
        [["Alice", "met", "Bob"], ["Hi"]], is_split_into_words=True, padding=True, return_tensors="pt"
    )
    with torch.no_grad():
        first, second = model(**batch).logits, model(**batch).logits
    torch.testing.assert_close(first, second, rtol=0, atol=0)


def test_trainer_evaluates_a_head_on_a_stateful_config_to_the_same_loss_twice(tmp_path, one_thread):
    tokenizer = ElmoTokenizer()
    dataset = [dict(tokenizer(words, is_split_into_words=True), labels=labels) for words, labels in token_examples(12)]
    args = training_args(tmp_path, per_device_eval_batch_size=4)
    trainer = Trainer(
        model=stateful_head(ElmoForTokenClassification),
        args=args,
        eval_dataset=dataset,
        data_collator=DataCollatorForTokenClassification(tokenizer),
    )
    assert trainer.evaluate()["eval_loss"] == trainer.evaluate()["eval_loss"]


def test_a_head_built_on_a_stateful_config_warns_that_it_runs_its_biLM_stateless():
    type(modeling_heads._logger).warning_once.cache_clear()
    with CaptureLogger(modeling_heads._logger) as log:
        ElmoForSequenceClassification(tiny_config(num_labels=2, stateful=True))
        ElmoForSequenceClassification(tiny_config(num_labels=2))
    assert log.out.count("\n") == 1
    assert "ElmoForSequenceClassification runs its biLM stateless" in log.out
    assert "config.stateful=True applies to ElmoModel only" in log.out
