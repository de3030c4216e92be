"""A float64 model's losses are float64, to float64's precision: the token head's cross-entropy and the
LM's full-softmax loss (its perplexity) were taken in float32 (``.float()``), silently rounding a float64
model's loss to float32's 1e-7 and its gradients with it."""

from __future__ import annotations

import torch

from hf_elmo import ElmoTokenizer
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.training.data import collate_sentences
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.test_heads import token_model


def test_a_float64_token_heads_loss_is_the_float64_cross_entropy():
    model = token_model().double().eval()
    batch = ElmoTokenizer()([["Bob", "ran", "7"], ["far"]], is_split_into_words=True, padding=True, return_tensors="pt")
    labels = torch.tensor([[1, -100, 2], [0, -100, -100]])
    out = model(**batch, labels=labels)
    keep = labels != -100
    expected = -out.logits.log_softmax(-1)[keep].gather(1, labels[keep].unsqueeze(1)).mean()
    assert out.loss.dtype == torch.float64
    torch.testing.assert_close(out.loss, expected, rtol=0, atol=1e-13)


def test_a_float32_token_heads_loss_stays_float32():
    out = token_model().eval()(**ElmoTokenizer()(["Bob ran"], return_tensors="pt"), labels=torch.tensor([[1, 0]]))
    assert out.loss.dtype == torch.float32


def test_a_float64_lms_full_softmax_loss_is_the_float64_cross_entropy(allennlp_fixture):
    lm = ElmoForBidirectionalLM.from_allennlp_with_softmax(
        allennlp_fixture / "options.json",
        allennlp_fixture / "lm_weights.hdf5",
        allennlp_fixture / "elmo_softmax_weights.hdf5",
    )
    lm = lm.double().eval()
    vocab = Vocabulary.from_file(allennlp_fixture / "vocab_test.txt")
    batch = collate_sentences([["the", "cat", "sat"], ["a", "dog"]], vocab)
    with torch.no_grad():
        out = lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels, output_hidden_states=True)
        top = out.hidden_states[-1][:, :-1, : lm.config.projection_dim]  # the forward direction predicts t+1
        targets = batch.labels[:, 1:]
        keep = (torch.arange(1, batch.labels.shape[1]) < batch.lengths.unsqueeze(1)) & (targets != -100)
        logits = top[keep] @ lm.softmax.weight.T + lm.softmax.bias
        expected = -logits.log_softmax(-1).gather(1, targets[keep].unsqueeze(1)).mean()
    assert out.forward_loss.dtype == torch.float64
    torch.testing.assert_close(out.forward_loss, expected, rtol=0, atol=1e-12)


def test_a_float64_lms_sampled_softmax_loss_is_float64(allennlp_fixture):
    """Training's sampled softmax too (was: float32, as ``.float()`` made it)."""
    lm = ElmoForBidirectionalLM.from_allennlp_with_softmax(
        allennlp_fixture / "options.json",
        allennlp_fixture / "lm_weights.hdf5",
        allennlp_fixture / "elmo_softmax_weights.hdf5",
    )
    softmax = lm.softmax.double()
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(6, softmax.weight.shape[1], generator=generator, dtype=torch.float64)
    targets = torch.tensor([0, 3, 5, 7, 3, 11])
    candidates = torch.tensor([1, 3, 8, 20])
    with torch.no_grad():
        loss = softmax.sampled_loss(hidden, targets, candidates, num_tries=8)
        in_float32 = softmax.float().sampled_loss(hidden.float(), targets, candidates, num_tries=8)
    assert loss.dtype == torch.float64
    torch.testing.assert_close(loss.float(), in_float32, rtol=1e-5, atol=0)
