"""``perplexity``'s ``average`` is bilm-tf's figure, ``exp`` of the mean of the two directions' mean
losses (``sqrt(forward * backward)``), not the arithmetic mean of the two perplexities."""

from __future__ import annotations

import json
import math

import pytest
import torch

from hf_elmo.corpus import read_corpus
from hf_elmo.fileio import strict_json
from hf_elmo.training.evaluation import perplexity, perplexity_from_json
from hf_elmo.training.vocab import build_vocabulary
from tests.hf_elmo.training.test_pretraining import tiny_lm, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")


def test_the_average_is_the_geometric_mean_of_the_two_directions_as_bilm_tf_reports_it(tmp_path):
    """Was: 0.5 * (forward + backward), above bilm-tf's exp(0.5 * (forward_loss + backward_loss))
    by (forward - backward)^2 / 8 / average: the paper's 39.7 was not the figure compared with."""
    sentences = read_corpus(write_corpus(tmp_path / "c.txt", n=10))
    vocab = build_vocabulary(sentences)
    model = tiny_lm(len(vocab))
    with torch.no_grad():  # </S> (forward's last target) likely, <S> (backward's) not: the directions differ
        model.softmax.bias[vocab.eos_id] = 3.0
        model.softmax.bias[vocab.bos_id] = -3.0
    result = perplexity(model, vocab, sentences)
    forward, backward = result["forward"], result["backward"]
    assert forward < 0.8 * backward
    assert result["average"] == pytest.approx(math.sqrt(forward * backward), rel=1e-12)
    assert result["average"] == pytest.approx(
        math.exp(0.5 * (result["forward_loss"] + result["backward_loss"])), rel=1e-12
    )


def test_an_average_strict_json_wrote_null_comes_back_from_the_two_losses_finite_where_it_is():
    """A direction beyond float64 (loss 800 nats) with the other at 3: the average is exp(400.5...),
    finite, as ``perplexity`` gives it (was: their arithmetic mean, inf)."""
    figures = {"forward": None, "backward": 3.0, "average": None, "forward_loss": 800.0}
    figures |= {"backward_loss": math.log(3.0), "predictions": 4, "unk_rate": 0.0}
    restored = perplexity_from_json(json.loads(strict_json(figures)))
    assert restored["forward"] == math.inf
    assert restored["average"] == pytest.approx(math.exp(400.0) * math.sqrt(3.0), rel=1e-12)
    assert math.isnan(perplexity_from_json({**figures, "forward_loss": None})["average"])
