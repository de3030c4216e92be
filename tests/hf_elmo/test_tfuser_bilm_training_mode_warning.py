"""``ElmoModel`` run without gradients in training mode with ``config.dropout`` > 0 (as it is when
built, or after the user's own training loop: transformers' stock feature-extraction pipeline does not
call ``eval()``) warns once, as the task heads do, that dropout makes its outputs vary, in one line
saying to call ``model.eval()``; its vectors differed at every call, silently."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import pipeline

from hf_elmo import ElmoForTokenClassification, ElmoModel, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config
from tests.hf_elmo.test_heads_pipeline_training_mode import WARNING, predictions_logged


def test_the_stock_feature_extraction_pipeline_of_a_bilm_in_training_mode_warns_once():
    torch.manual_seed(0)
    model = ElmoModel(tiny_config(dropout=0.5))
    assert model.training  # as built, as after a training loop
    extract = pipeline("feature-extraction", model=model, tokenizer=ElmoTokenizer())
    (first, second), log = predictions_logged(lambda: np.array(extract("Bob ran far")))
    assert not np.array_equal(first, second)  # why it warns
    assert log == WARNING
    model.eval()
    (first, second), log = predictions_logged(lambda: np.array(extract("Bob ran far")))
    assert np.array_equal(first, second) and log == ""


@pytest.mark.parametrize("case", ["eval", "no dropout", "gradients"])
def test_a_bilm_whose_outputs_do_not_vary_or_that_trains_does_not_warn(case):
    model = ElmoModel(tiny_config(dropout=0.0 if case == "no dropout" else 0.5)).train(case != "eval")
    inputs = ElmoTokenizer()(["Bob ran far"], return_tensors="pt")
    with torch.set_grad_enabled(case == "gradients"):
        _, log = predictions_logged(lambda: model(**inputs).last_hidden_state)
    assert log == ""


def test_a_tagger_that_runs_its_fine_tuned_bilm_in_training_mode_warns_in_one_line():
    model = ElmoForTokenClassification(tiny_config(num_labels=2, dropout=0.5, freeze_bilm=False)).train()
    inputs = ElmoTokenizer()(["Bob ran far"], return_tensors="pt")
    with torch.no_grad():
        _, log = predictions_logged(lambda: model(**inputs).logits)
    assert log == WARNING  # not once more for the biLM
