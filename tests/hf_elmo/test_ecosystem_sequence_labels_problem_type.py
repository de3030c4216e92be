"""ElmoForSequenceClassification inferred config.problem_type from the first labels it was given and
kept it even when those labels fit it not (float class ids read as multi-label rows, integer
multi-hot rows as class ids): the call failed in torch ('Target size ... must be the same as input
size'), and every later call with corrected labels failed too, once with the advice to convert
multi-hot rows to class ids. Now such labels are refused in one line naming the shape and dtype
to give, and the config is left as it was."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForSequenceClassification, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config


def batch() -> dict[str, torch.Tensor]:
    return dict(ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt"))


@pytest.mark.parametrize(
    "wrong, right, problem_type, advice",
    [
        (torch.tensor([0.0, 2.0]), torch.tensor([0, 2]), "single_label_classification", "labels.long()"),
        (
            torch.tensor([[1, 0, 1], [0, 0, 1]]),
            torch.tensor([[1.0, 0, 1], [0, 0, 1]]),
            "multi_label_classification",
            "labels.float()",
        ),
    ],
    ids=["float-class-ids", "integer-multi-hot-rows"],
)
def test_labels_that_fit_no_problem_type_are_refused_and_the_corrected_ones_then_train(
    wrong, right, problem_type, advice
):
    model = ElmoForSequenceClassification(tiny_config(num_labels=3))
    with pytest.raises(ValueError) as error:
        model(**batch(), labels=wrong)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"labels of shape {tuple(wrong.shape)}") and advice in message
    assert model.config.problem_type is None
    out = model(**batch(), labels=right)
    assert model.config.problem_type == problem_type
    expected = (
        torch.nn.functional.cross_entropy(out.logits, right)
        if problem_type == "single_label_classification"
        else torch.nn.functional.binary_cross_entropy_with_logits(out.logits, right)
    )
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=1e-6)


def test_a_problem_type_set_in_the_config_is_named_and_kept_when_labels_do_not_fit_it():
    model = ElmoForSequenceClassification(tiny_config(num_labels=3, problem_type="multi_label_classification"))
    with pytest.raises(ValueError, match=r"for multi-label classification \(config.problem_type\)"):
        model(**batch(), labels=torch.tensor([0, 2]))
    assert model.config.problem_type == "multi_label_classification"


def test_class_ids_of_shape_batch_by_one_are_read_as_transformers_reads_them():
    torch.manual_seed(0)
    model = ElmoForSequenceClassification(tiny_config(num_labels=3)).eval()
    expected = model(**batch(), labels=torch.tensor([2, 0])).loss
    torch.testing.assert_close(model(**batch(), labels=torch.tensor([[2], [0]])).loss, expected, rtol=0, atol=0)


def test_regression_labels_of_another_shape_are_refused_not_broadcast():
    """num_labels=3 regression values given one a sentence, for 3 sentences, were broadcast by torch
    to a (3, 3) difference: a wrong loss, with only a UserWarning."""
    three = dict(ElmoTokenizer()(["a b", "c", "d e f"], padding=True, return_tensors="pt"))
    model = ElmoForSequenceClassification(tiny_config(num_labels=3, problem_type="regression"))
    with pytest.raises(
        ValueError, match=r"^labels of shape \(3,\) for regression \(config.problem_type\): .* \(3, 3\)$"
    ):
        model(**three, labels=torch.tensor([0.5, 1.0, 2.0]))
    out = model(**three, labels=torch.ones(3, 3))
    torch.testing.assert_close(out.loss, torch.nn.functional.mse_loss(out.logits, torch.ones(3, 3)), rtol=0, atol=0)


@pytest.mark.parametrize("labels", [torch.tensor([0.5, -1.0]), torch.tensor([[0.5], [-1.0]])], ids=["batch", "batch-1"])
def test_one_regression_value_a_sentence_is_read_in_either_shape(labels):
    model = ElmoForSequenceClassification(tiny_config(num_labels=1))
    out = model(**batch(), labels=labels)
    expected = torch.nn.functional.mse_loss(out.logits.squeeze(-1), labels.reshape(-1))
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=0)
