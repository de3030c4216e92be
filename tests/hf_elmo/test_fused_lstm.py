"""The ``"fused"`` biLM path (torch's LSTM kernel, clip-free configs) equals the existing paths.

Outputs, final states and gradients within 1e-5 in float32 against ``"fast"`` and ``"plain"``
over the shapes of test_fast_path.py (without clipping), batches of very different lengths,
a stateful second call (a non-zero initial state), the LM loss, and a model trained with the
fused path, saved and reloaded, run on every path. A config that clips, or whose projection is not
narrower than its cell, gets a clear error.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from hf_elmo import ElmoConfig, ElmoModel, batch_to_ids
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.training.data import collate_sentences
from hf_elmo.training.vocab import build_vocabulary
from tests.conftest import REPO
from tests.hf_elmo.test_fast_path import SENTENCES
from tests.numpy_elmo import small_options, write_random_original

pytestmark = pytest.mark.usefixtures("one_thread")

ATOL = 1e-5
PATHS = ("fast", "plain")
SIZES = {
    "skip-relu": small_options(filters=((1, 4), (2, 8), (3, 16), (7, 8)), clip=None),
    "no-skip-tanh-3-layers": small_options(skip=False, activation="tanh", n_layers=3, n_highway=2, clip=None),
    "wide-filters-261-chars": small_options(filters=((1, 8), (5, 16), (7, 8)), n_characters=261, clip=None),
    "one-layer-no-highway": small_options(n_highway=0, n_layers=1, clip=None),
}
# One token against 120, in an order that is not sorted by length.
UNEVEN = [["short"], [f"w{i % 37}" for i in range(120)], ["a", "b", "c"], [f"v{i}" for i in range(61)]]


def _model(folder, options, seed=0) -> ElmoModel:
    write_random_original(folder, options, seed=seed)
    return ElmoModel.from_allennlp(folder / "options.json", folder / "weights.hdf5").eval()


def _run(model, implementation: str, **kwargs):
    saved = model.config.bilm_implementation
    model.config.bilm_implementation = implementation
    try:
        return model(**kwargs)
    finally:
        model.config.bilm_implementation = saved


def _two_stateful_calls(model: ElmoModel, implementation: str, first, second):
    """Outputs of ``second`` after ``first`` (so it starts from a non-zero state) and the final state."""
    model.reset_states()
    with torch.inference_mode():
        _run(model, implementation, input_ids=first, stateful=True)
        out = _run(model, implementation, input_ids=second, stateful=True)
    state = model._carried_state
    model.reset_states()
    return out.hidden_states, state


@pytest.mark.parametrize("size", sorted(SIZES))
def test_fused_layers_and_final_states_equal_the_fast_and_plain_ones(tmp_path, size):
    model = _model(tmp_path, SIZES[size], seed=len(size))
    first, second = batch_to_ids(UNEVEN), batch_to_ids(SENTENCES, max_token_chars=None)
    fused, fused_state = _two_stateful_calls(model, "fused", first, second)
    assert fused[-1].abs().max() > 0.1, "outputs of a realistic scale, or the test proves nothing"
    assert fused_state.c.abs().max() > 0.1
    for path in PATHS:
        other, other_state = _two_stateful_calls(model, path, first, second)
        for f, o in zip(fused, other):
            torch.testing.assert_close(f, o, atol=ATOL, rtol=0, msg=path)
        torch.testing.assert_close(fused_state.h, other_state.h, atol=ATOL, rtol=0, msg=path)
        torch.testing.assert_close(fused_state.c, other_state.c, atol=ATOL, rtol=0, msg=path)


def test_padded_rows_of_very_different_lengths_are_zero_beyond_their_length(tmp_path):
    model = _model(tmp_path, SIZES["skip-relu"])
    ids = batch_to_ids(UNEVEN)
    with torch.inference_mode():
        fused = _run(model, "fused", input_ids=ids).hidden_states
        plain = _run(model, "plain", input_ids=ids).hidden_states
    for f, p in zip(fused, plain):
        torch.testing.assert_close(f, p, atol=ATOL, rtol=0)
        assert not f[0, 1:].any() and not f[2, 3:].any()


@pytest.mark.parametrize("size", ["skip-relu", "no-skip-tanh-3-layers"])
def test_fused_gradients_equal_the_plain_ones(tmp_path, size):
    model = _model(tmp_path, SIZES[size]).train()  # dropout 0: the paths must agree exactly
    ids = batch_to_ids(UNEVEN[:1] + SENTENCES[2:])
    grads = {}
    for path in ("fused",) + PATHS:
        model.zero_grad()
        out = _run(model, path, input_ids=ids)
        loss = sum((layer * torch.linspace(-1, 1, layer.shape[-1])).sum() for layer in out.hidden_states)
        loss.backward()
        grads[path] = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    assert len(grads["fused"]) > 10 and grads["fused"].keys() == grads["plain"].keys()
    for path in PATHS:
        for name, grad in grads["fused"].items():
            torch.testing.assert_close(grad, grads[path][name], atol=ATOL, rtol=ATOL, msg=f"{path}: {name}")


def _tiny_lm(implementation: str, vocab_size: int) -> ElmoForBidirectionalLM:
    torch.manual_seed(0)
    config = ElmoConfig(
        filters=[[1, 4], [2, 8]],
        char_embedding_dim=4,
        lstm_dim=16,
        projection_dim=8,
        n_layers=2,
        cell_clip=None,
        proj_clip=None,
        vocab_size=vocab_size,
        softmax="full",
        bilm_implementation=implementation,
    )
    return ElmoForBidirectionalLM(config)


def test_lm_loss_and_its_gradients_equal_the_fast_path():
    vocab = build_vocabulary(["the cat sat on the mat", "a dog ran"])
    batch = collate_sentences([["the", "cat", "sat", "on", "the", "mat"], ["a", "dog"], ["ran"]], vocab)
    results = {}
    for path in ("fused", "fast"):
        model = _tiny_lm(path, len(vocab)).train()
        out = model(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels)
        out.loss.backward()
        results[path] = out.loss.detach(), {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
    torch.testing.assert_close(results["fused"][0], results["fast"][0], atol=ATOL, rtol=0)
    for name, grad in results["fused"][1].items():
        torch.testing.assert_close(grad, results["fast"][1][name], atol=ATOL, rtol=ATOL, msg=name)


def test_a_model_trained_on_the_fused_path_saves_and_runs_on_every_path(tmp_path):
    vocab = build_vocabulary(["the cat sat on the mat", "a dog ran far away"])
    batch = collate_sentences([["the", "cat", "sat"], ["a", "dog", "ran", "far", "away"]], vocab)
    lm = _tiny_lm("fused", len(vocab)).train()
    optimizer = torch.optim.Adam(lm.parameters(), lr=0.05)
    for _ in range(3):
        optimizer.zero_grad()
        lm(input_ids=batch.input_ids, lengths=batch.lengths, labels=batch.labels).loss.backward()
        optimizer.step()
    lm.eval().save_pretrained(tmp_path / "lm")
    ids = batch_to_ids(UNEVEN)
    with torch.inference_mode():
        expected = lm.elmo(input_ids=ids).hidden_states  # the trained weights, on the fused path
        reloaded = ElmoModel.from_pretrained(tmp_path / "lm").eval()
        assert reloaded.config.bilm_implementation == "fused"
        for path in ("fused",) + PATHS:
            for e, r in zip(expected, _run(reloaded, path, input_ids=ids).hidden_states):
                torch.testing.assert_close(r, e, atol=ATOL, rtol=0, msg=path)


def test_fused_path_with_a_config_that_clips_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="bilm_implementation='fused' needs cell_clip and proj_clip None"):
        ElmoConfig(cell_clip=3.0, proj_clip=None, bilm_implementation="fused")
    model = _model(tmp_path, small_options(clip=3.0))  # the config says fast; fused asked for at call time
    with pytest.raises(ValueError, match="cell_clip=3.0, proj_clip=3.0"):
        _run(model, "fused", input_ids=batch_to_ids(SENTENCES[:2]))


@pytest.mark.parametrize("lstm_dim", [8, 4], ids=["cell-as-wide", "cell-narrower"])
def test_fused_path_with_a_projection_not_below_the_cell_is_a_clear_error(tmp_path, lstm_dim):
    """torch's LSTM kernel projects only to fewer units than its cell has (``nn.LSTM``'s
    ``proj_size < hidden_size``): at P == C it took the projection for none ('got an incorrect
    number of RNN parameters'), found by fuzzing the paths over random shapes."""
    with pytest.raises(
        ValueError, match=f"needs projection_dim below lstm_dim .*projection_dim=8, lstm_dim={lstm_dim}"
    ):
        ElmoConfig(projection_dim=8, lstm_dim=lstm_dim, cell_clip=None, proj_clip=None, bilm_implementation="fused")
    model = _model(tmp_path, small_options(dim=lstm_dim, proj=8, clip=None))  # fast in its config
    with pytest.raises(ValueError, match=r"^ElmoConfig\.bilm_implementation='fused' needs projection_dim below"):
        _run(model, "fused", input_ids=batch_to_ids(SENTENCES[:2]))


def test_bfloat16_autocast_runs_the_fused_lstm_in_bfloat16(tmp_path):
    model = _model(tmp_path, SIZES["skip-relu"])
    model.config.bilm_implementation = "fused"
    ids = batch_to_ids(SENTENCES)
    lengths = (ids > 0).any(-1).sum(1)
    with torch.inference_mode():
        reference, _ = model.encode(ids, lengths)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            low, state = model.encode(ids, lengths)
    assert state.h.dtype == state.c.dtype == torch.bfloat16
    for r, b in zip(reference[1:], low[1:]):
        assert b.dtype == torch.bfloat16
        assert (r - b.float()).abs().max() < 0.1 * r.abs().max()


@pytest.mark.gpu
def test_fused_path_on_gpu_equals_the_plain_path_on_cpu_and_trains_under_bf16_autocast(tmp_path, monkeypatch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    # cuDNN's LSTM multiplies in TF32 by torch's default: 3.1e-4 from the CPU on an H200 (2026-11-27)
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    model = _model(tmp_path, SIZES["skip-relu"])
    ids = batch_to_ids(UNEVEN)
    with torch.inference_mode():
        plain = _run(model, "plain", input_ids=ids).hidden_states
        fused = _run(model.to("cuda"), "fused", input_ids=ids.to("cuda")).hidden_states
    for f, p in zip(fused, plain):
        torch.testing.assert_close(f.cpu(), p, atol=ATOL, rtol=0)
    model.train().config.bilm_implementation = "fused"
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(input_ids=ids.to("cuda")).last_hidden_state
    out.float().square().mean().backward()
    assert all(torch.isfinite(p.grad).all() for p in model.bilm.parameters() if p.grad is not None)


def test_cudnns_warning_about_the_fused_weights_is_silenced_for_this_module_alone():
    """torch warns (on CUDA) that the weights handed to cuDNN are not one flat buffer, naming
    ``flatten_parameters()``; the fused path's weights are derived, so only its own warning goes."""
    script = """
import warnings
import hf_elmo.elmo_layers
message = "RNN module weights are not part of single contiguous chunk of memory. This means ..."
with warnings.catch_warnings(record=True) as caught:
    for module in ("hf_elmo.elmo_layers", "transformers_modules.elmo.elmo_layers", "user_code", "my_elmo_layers"):
        warnings.warn_explicit(message, UserWarning, module + ".py", 1, module=module)
print(sorted(str(w.filename) for w in caught))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    assert done.stdout.strip() == "['my_elmo_layers.py', 'user_code.py']"
