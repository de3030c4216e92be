"""A frozen biLM (``config.freeze_bilm``) whose parameters were made trainable by hand, as a BERT
model's base is unfrozen (``model.elmo.requires_grad_(True)``), ran without gradients: training went
on and the biLM silently stayed as it was. Now the forward refuses it in one line naming the fix."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoForTokenClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config

HEADS = [ElmoForTokenClassification, ElmoForSequenceClassification]


def batch_and_labels(head: type) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    batch = ElmoTokenizer()(["Bob ran far", "a cat"], padding=True, return_tensors="pt")
    labels = torch.tensor([[1, 0, 1], [0, 0, -100]]) if head is ElmoForTokenClassification else torch.tensor([1, 0])
    return dict(batch), labels


@pytest.mark.parametrize("head", HEADS)
def test_a_frozen_biLM_made_trainable_by_hand_is_refused_naming_freeze_bilm(head):
    model = head(tiny_config(num_labels=2)).train()
    for parameter in model.elmo.parameters():
        parameter.requires_grad = True
    batch, labels = batch_and_labels(head)
    with pytest.raises(ValueError) as error:
        model(**batch, labels=labels)
    message = str(error.value)
    assert "\n" not in message
    assert "requires grad but the biLM is frozen (config.freeze_bilm)" in message
    assert "model.freeze_bilm(False)" in message


@pytest.mark.parametrize("head", HEADS)
def test_such_a_model_still_predicts_without_gradients(head):
    torch.manual_seed(0)
    model = head(tiny_config(num_labels=2)).eval()
    batch, _ = batch_and_labels(head)
    expected = model(**batch).logits
    model.elmo.requires_grad_(True)
    with torch.no_grad():
        torch.testing.assert_close(model(**batch).logits, expected, rtol=0, atol=0)


@pytest.mark.parametrize("head", HEADS)
def test_the_way_the_error_names_fine_tunes_the_chosen_parts_of_the_biLM(head):
    model = head(tiny_config(num_labels=2)).train()
    model.freeze_bilm(False)
    model.elmo.char_cnn.requires_grad_(False)
    batch, labels = batch_and_labels(head)
    model(**batch, labels=labels).loss.backward()
    got_gradients = {name for name, p in model.elmo.named_parameters() if p.grad is not None and p.grad.any()}
    assert got_gradients and not any(name.startswith("char_cnn.") for name in got_gradients)
