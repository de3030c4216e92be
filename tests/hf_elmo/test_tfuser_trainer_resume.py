"""``Trainer``'s checkpoints of a task head (the fine-tuned biLM and dropout included) resume exactly:
``trainer.train(resume_from_checkpoint=...)`` from the middle of a run ends with the weights and losses of
the run never stopped, the checkpoint's folder loading with ``from_pretrained`` as any saved model."""

from __future__ import annotations

import torch
from transformers import DataCollatorWithPadding, Trainer

from hf_elmo import ElmoForSequenceClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config, token_examples, training_args, with_signal


def run(tmp_path, resume_from_checkpoint=None):
    """Six steps of a head whose biLM is fine-tuned with dropout, checkpointed every three; the model
    and the losses logged (those of the steps before a resumed checkpoint too)."""
    tokenizer = ElmoTokenizer()
    dataset = [
        dict(tokenizer(words, is_split_into_words=True), label=int(2 in labels)) for words, labels in token_examples(48)
    ]
    torch.manual_seed(0)
    config = tiny_config(num_labels=2, freeze_bilm=False, dropout=0.1, head_dropout=0.3)
    model = with_signal(ElmoForSequenceClassification(config))
    args = training_args(tmp_path, max_steps=6, learning_rate=3e-2, save_strategy="steps", save_steps=3)
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=dataset,
        data_collator=DataCollatorWithPadding(tokenizer),
        processing_class=tokenizer,
    )
    trainer.train(resume_from_checkpoint=resume_from_checkpoint)
    return model, [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]


def test_a_run_resumed_from_its_checkpoint_ends_as_the_run_never_stopped(tmp_path, one_thread):
    whole, losses = run(tmp_path)
    resumed, resumed_losses = run(tmp_path, resume_from_checkpoint=str(tmp_path / "checkpoint-3"))
    assert resumed_losses == losses and len(losses) == 6
    for (name, value), other in zip(whole.state_dict().items(), resumed.state_dict().values()):
        assert torch.equal(value, other), name
    loaded = ElmoForSequenceClassification.from_pretrained(tmp_path / "checkpoint-6")
    for name, value in whole.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], value), name
