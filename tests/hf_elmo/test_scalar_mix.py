"""ScalarMix: gamma * sum softmax(s)_j h_j, with batch (over the masked elements) or token layer norm."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ScalarMix, batch_to_ids
from hf_elmo.char_ids import add_sentence_markers


@pytest.fixture()
def layers():
    torch.manual_seed(0)
    return [torch.randn(2, 5, 6) for _ in range(3)]


def test_initial_mix_is_the_average_of_the_layers(layers):
    mix = ScalarMix(3)
    torch.testing.assert_close(mix(layers), sum(layers) / 3)


def test_mix_follows_the_papers_formula(layers):
    mix = ScalarMix(3, initial_scalar_parameters=[0.5, -1.0, 2.0])
    with torch.no_grad():
        mix.gamma.fill_(1.7)
    w = torch.softmax(torch.tensor([0.5, -1.0, 2.0]), 0)
    torch.testing.assert_close(mix(layers), 1.7 * (w[0] * layers[0] + w[1] * layers[1] + w[2] * layers[2]))


def test_frozen_selection_picks_one_layer_and_has_no_trainable_parameters(layers):
    mix = ScalarMix(3, initial_scalar_parameters=[-9e10, 1.0, -9e10], trainable=False)
    torch.testing.assert_close(mix(layers), layers[1])
    assert not any(p.requires_grad for p in mix.parameters())


def test_batch_layer_norm_uses_unmasked_elements_of_the_whole_batch(layers):
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    mix = ScalarMix(3, layer_norm="batch")
    expected = []
    for layer in layers:
        values = layer[mask.bool()]
        mean, var = values.mean(), values.var(unbiased=False)
        expected.append((layer - mean) / torch.sqrt(var + 1e-13))
    torch.testing.assert_close(mix(layers, mask), sum(expected) / 3)
    with pytest.raises(ValueError, match="needs the mask"):
        mix(layers)


def _mix_with_markers(model, mix, ids):
    """The docstring's recipe: mix the layers with <S>/</S> (AllenNLP's do_layer_norm), then cut them."""
    mask = (ids > 0).any(-1)
    n = mask.sum(1)
    layers, _ = model.encode(add_sentence_markers(ids, n), n + 2)
    steps = torch.arange(ids.shape[1] + 2)
    return mix(layers, steps < (n + 2).unsqueeze(1))[:, 1:-1] * mask.unsqueeze(-1)


def test_batch_layer_norm_of_hidden_states_leaves_out_the_sentence_markers_allennlp_counts(allennlp_model):
    ids = batch_to_ids([["The", "cat", "sat", "on", "the", "mat"], ["Hi"]])
    with torch.no_grad():
        out = allennlp_model(input_ids=ids)
        plain_mix = ScalarMix(3, initial_scalar_parameters=[0.3, -0.2, 0.5])
        torch.testing.assert_close(
            _mix_with_markers(allennlp_model, plain_mix, ids), plain_mix(out.hidden_states), atol=1e-6, rtol=0
        )
        normed = ScalarMix(3, layer_norm="batch", initial_scalar_parameters=[0.3, -0.2, 0.5])
        difference = _mix_with_markers(allennlp_model, normed, ids) - normed(out.hidden_states, out.attention_mask)
    assert difference.abs().max() > 0.1


def test_token_layer_norm_normalises_each_vector(layers):
    mix = ScalarMix(3, layer_norm="token", initial_scalar_parameters=[0.0, 0.0, 9e10])
    out = mix(layers)
    torch.testing.assert_close(out.mean(-1), torch.zeros(2, 5), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.var(-1, unbiased=False), torch.ones(2, 5), atol=1e-4, rtol=0)


def test_several_mixes_over_one_output_learn_independently(layers):
    ner, textcat = ScalarMix(3), ScalarMix(3)
    (ner(layers) * layers[2]).sum().backward()
    assert ner.scalar_parameters.grad is not None and textcat.scalar_parameters.grad is None
    assert ner.l2_penalty().item() == 0.0


def test_dropout_acts_on_the_mixed_vector_in_training(layers):
    mix = ScalarMix(3, dropout=0.5)
    assert (mix(layers) == 0).float().mean() > 0.3
    mix.eval()
    torch.testing.assert_close(mix(layers), sum(layers) / 3)


def test_wrong_layer_count_and_bad_options_are_refused(layers):
    with pytest.raises(ValueError, match="expects 2 layers"):
        ScalarMix(2)(layers)
    with pytest.raises(ValueError, match="layer_norm"):
        ScalarMix(3, layer_norm="instance")
    with pytest.raises(ValueError, match="2 values for 3 layers"):
        ScalarMix(3, initial_scalar_parameters=[0.0, 1.0])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_token_layer_norm_gives_padding_zeros_and_a_zero_gradient_in_every_dtype(layers, dtype):
    """Padding positions' layers are zeros (ElmoModel's hidden_states): normalised, they stay zeros and get a zero
    gradient, as in spacy_elmo's mix; real rows are normalised in float32. Was: 1/sqrt(EPS) (about 3e6) times their
    gradient, and in float16 (a model loaded with dtype=torch.float16) 0 / 0: NaN rows, which a loss over the real
    tokens alone still turned into NaN gradients."""
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool)
    padded = [(layer * mask.unsqueeze(-1)).to(dtype).requires_grad_() for layer in layers]
    mix = ScalarMix(3, layer_norm="token").to(dtype)
    mixed = mix(padded)
    assert torch.isfinite(mixed).all()
    assert (mixed[~mask] == 0).all()
    expected = ScalarMix(3, layer_norm="token")([layer.detach().float() for layer in padded])
    torch.testing.assert_close(mixed.float(), expected, rtol=1e-2, atol=1e-2)
    (mixed[mask].float() * torch.randn(int(mask.sum()), 6)).sum().backward()
    for layer in padded:
        assert torch.isfinite(layer.grad).all() and (layer.grad[~mask] == 0).all()
    mixed = mix(padded)
    (mixed.float() * torch.randn(mixed.shape)).sum().backward()  # a loss that does not mask the padding
    for layer in padded:
        assert (layer.grad[~mask] == 0).all()


def test_batch_layer_norm_of_float16_layers_is_computed_in_float32():
    """Was: in float16, the sum over a batch's values overflowed (inf; here 4 x 50 x 1024 values near 3), so the
    whole mix was NaN."""
    torch.manual_seed(0)
    layers = [torch.randn(4, 50, 1024) + 3.0 for _ in range(2)]
    mask = torch.ones(4, 50, dtype=torch.bool)
    expected = ScalarMix(2, layer_norm="batch")(layers, mask)
    mixed = ScalarMix(2, layer_norm="batch").half()([layer.half() for layer in layers], mask)
    torch.testing.assert_close(mixed.float(), expected, rtol=1e-2, atol=1e-2)


def test_batch_layer_norm_of_a_batch_without_real_tokens_gives_zeros_and_a_zero_gradient():
    layers = [torch.randn(2, 3, 4, requires_grad=True) for _ in range(3)]
    mixed = ScalarMix(num_layers=3, layer_norm="batch")(layers, torch.zeros(2, 3, dtype=torch.bool))
    mixed.sum().backward()
    assert torch.equal(mixed, torch.zeros_like(mixed))
    assert all(torch.equal(layer.grad, torch.zeros_like(layer)) for layer in layers)
