"""The Thinc scalar mix equals ``hf_elmo.ScalarMix``: values and gradients, dropout, L2 on s."""

import numpy as np
import pytest
import torch

from hf_elmo import ScalarMix
from spacy_elmo.scalar_mix import scalar_mix

LENGTHS = [4, 0, 7, 1]
N_LAYERS, WIDTH = 3, 6
S = [0.3, -1.2, 0.7]
GAMMA = 1.7
L2 = 0.001


def batch(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(N_LAYERS, n, WIDTH)).astype("float32") for n in LENGTHS]


def thinc_mix(layer_norm, dropout=0.0, l2=L2):
    model = scalar_mix(layer_norm, dropout, l2)
    model.initialize(X=batch())
    model.set_param("s", np.asarray(S, dtype="float32"))
    model.set_param("gamma", np.asarray([GAMMA], dtype="float32"))
    return model


def torch_reference(Xs, layer_norm, d_out):
    """hf_elmo.ScalarMix over the padded batch; gradients of sum(Y * d_out) + L2 * sum(s^2)."""
    mix = ScalarMix(N_LAYERS, layer_norm=layer_norm, initial_scalar_parameters=S)
    with torch.no_grad():
        mix.gamma.fill_(GAMMA)
    longest = max(LENGTHS)
    padded = torch.zeros(N_LAYERS, len(Xs), longest, WIDTH)
    mask = torch.zeros(len(Xs), longest, dtype=torch.bool)
    for row, X in enumerate(Xs):
        padded[:, row, : X.shape[1]] = torch.from_numpy(X)
        mask[row, : X.shape[1]] = True
    padded.requires_grad_(True)
    out = mix(list(padded), mask)
    grad = torch.zeros_like(out)
    for row, dY in enumerate(d_out):
        grad[row, : dY.shape[0]] = torch.from_numpy(dY)
    ((out * grad).sum() + L2 * mix.l2_penalty()).backward()
    outputs = [out[row, :n].detach().numpy() for row, n in enumerate(LENGTHS)]
    d_inputs = [padded.grad[:, row, :n].numpy() for row, n in enumerate(LENGTHS)]
    return outputs, d_inputs, mix.scalar_parameters.grad.numpy(), mix.gamma.grad.item()


@pytest.mark.parametrize("layer_norm", [None, "batch", "token"])
def test_mix_and_its_gradients_equal_hf_elmo_scalar_mix(layer_norm):
    Xs = batch()
    d_out = [np.random.default_rng(1).normal(size=(n, WIDTH)).astype("float32") for n in LENGTHS]
    model = thinc_mix(layer_norm)
    Ys, backprop = model(Xs, is_train=True)
    dXs = backprop(d_out)
    outputs, d_inputs, d_s, d_gamma = torch_reference(Xs, layer_norm, d_out)
    for Y, expected in zip(Ys, outputs):
        np.testing.assert_allclose(Y, expected, atol=1e-5)
    for dX, expected in zip(dXs, d_inputs):
        np.testing.assert_allclose(dX, expected, atol=1e-4)
    np.testing.assert_allclose(model.get_grad("s"), d_s, atol=1e-4)
    np.testing.assert_allclose(model.get_grad("gamma"), [d_gamma], rtol=1e-5, atol=1e-4)


def test_mix_starts_as_the_average_of_the_layers():
    model = scalar_mix()
    Xs = batch()
    model.initialize(X=Xs)
    for Y, X in zip(model.predict(Xs), Xs):
        np.testing.assert_allclose(Y, X.mean(axis=0), atol=1e-6)


def test_dropout_applies_in_training_only_and_keeps_the_expectation():
    model = thinc_mix(None, dropout=0.5)
    Xs = [np.ones((N_LAYERS, 2000, WIDTH), dtype="float32")]
    np.testing.assert_allclose(model.predict(Xs)[0], GAMMA, rtol=1e-6)
    dropped = model(Xs, is_train=True)[0][0]
    assert 0.4 < (dropped == 0).mean() < 0.6
    assert abs(dropped.mean() - GAMMA) < 0.05


def test_spacy_training_dropout_does_not_override_the_mix_dropout():
    from thinc.api import set_dropout_rate

    model = scalar_mix(dropout=0.5)
    set_dropout_rate(model, 0.1)
    assert model.attrs["mix_dropout"] == 0.5


def test_bad_layer_norm_is_named():
    with pytest.raises(ValueError, match="layer_norm"):
        scalar_mix("sentence")


@pytest.mark.parametrize("layer_norm", ["batch", "token"])
def test_layer_norm_gives_whitespace_tokens_zero_vectors_and_no_gradient(layer_norm):
    """A whitespace token's layers are zeros (the biLM does not read it): normalised, they stay
    zeros, and the gradient handed back for them is zero (was: 1/sqrt(EPS), about 3e6, times
    the gradient, so a fine-tuned biLM's LOSS ELMO read about 1e12 on any batch with a
    whitespace token, or for "batch", a batch of whitespace-only docs)."""
    Xs = [np.zeros((N_LAYERS, 2, WIDTH), dtype="float32")]
    if layer_norm == "token":  # a whitespace token between two words
        Xs = [batch()[0][:, :3].copy()]
        Xs[0][:, 1] = 0.0
    model = thinc_mix(layer_norm)
    Ys, backprop = model(Xs, is_train=True)
    dXs = backprop([np.ones_like(Y) for Y in Ys])
    zero = 1 if layer_norm == "token" else slice(None)
    np.testing.assert_array_equal(Ys[0][zero], 0.0)
    np.testing.assert_array_equal(dXs[0][:, zero], 0.0)
