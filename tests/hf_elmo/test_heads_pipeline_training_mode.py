"""A task model run without gradients in training mode (after ``model.train()`` or a ``Trainer`` run:
transformers' pipelines do not call ``eval()``) warns once that dropout makes its scores vary, in one
line saying to call ``model.eval()``; it gave other scores at every call, silently."""

from __future__ import annotations

import pytest
import torch
from transformers import pipeline
from transformers.testing_utils import CaptureLogger

from hf_elmo import ElmoForSequenceClassification, ElmoTokenizer, modeling_elmo
from tests.hf_elmo.test_heads import elmo_tagger, tiny_config, token_model

WARNING = (
    "This ELMo model is in training mode, where dropout makes its outputs vary from call to call (a pipeline's too: "
    "pipelines do not call eval()): call model.eval() before predicting\n"
)


def predictions_logged(predict) -> tuple[list, str]:
    """What ``predict()`` returns, twice, and what the models' logger wrote meanwhile."""
    type(modeling_elmo._logger).warning_once.cache_clear()  # an earlier test may have warned once
    with CaptureLogger(modeling_elmo._logger) as log:
        results = [predict(), predict()]
    return results, log.out


def test_the_token_classification_pipeline_of_a_tagger_in_training_mode_warns_once():
    model = token_model()
    model.dropout.p = 0.5  # the default head_dropout
    tagger = elmo_tagger(model.train(), ElmoTokenizer())
    (first, second), log = predictions_logged(lambda: tagger("Bob ran far", ignore_labels=[]))
    assert [e["score"] for e in first] != [e["score"] for e in second]  # why it warns
    assert log == WARNING
    model.eval()
    (first, second), log = predictions_logged(lambda: tagger("Bob ran far", ignore_labels=[]))
    assert first == second and log == ""


def test_the_stock_text_classification_pipeline_of_a_model_in_training_mode_warns_once():
    torch.manual_seed(0)
    model = ElmoForSequenceClassification(tiny_config(num_labels=2, head_dropout=0.5)).train()
    classify = pipeline("text-classification", model=model, tokenizer=ElmoTokenizer())
    _, log = predictions_logged(lambda: classify("What a film!"))
    assert log == WARNING


@pytest.mark.parametrize("case", ["eval", "no dropout", "gradients"])
def test_a_model_whose_scores_do_not_vary_or_that_trains_does_not_warn(case):
    model = ElmoForSequenceClassification(tiny_config(num_labels=2, head_dropout=0.0 if case == "no dropout" else 0.5))
    model.train(case != "eval")
    inputs = ElmoTokenizer()(["Bob ran far"], return_tensors="pt")
    with torch.set_grad_enabled(case == "gradients"):
        _, log = predictions_logged(lambda: model(**inputs).logits)
    assert log == ""
