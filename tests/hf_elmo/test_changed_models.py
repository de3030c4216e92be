"""A model changed after loading gives what its changed weights and modules compute.

What the model keeps between calls (the token cache, re-laid-out weights) must not outlive a
change: fused optimizer steps (no trace in the version counters), autocast turned on or off,
``.data`` edits followed by ``clear_caches()``. Parts the fast path would read without calling
(hooks, pruning, quantised layers) make it run the plain path, which calls them. Each result is
held to a fresh model built with the same weights, or to the plain path.
"""

from __future__ import annotations

import copy
import dis
import sys
import threading

import pytest
import torch
from torch.nn.utils import prune

from hf_elmo import ElmoModel, batch_to_ids, elmo_cache
from tests.numpy_elmo import small_options, write_random_original

ATOL = 1e-5
SENTENCES = [["The", "cat", "sat", "on", "the", "mat", "."], ["Über", "naïve", "東京都"], ["x"]]


def _model(folder, clip: float | None = 3.0) -> ElmoModel:
    write_random_original(folder, small_options(clip=clip), seed=3)
    return ElmoModel.from_allennlp(folder / "options.json", folder / "weights.hdf5").eval()


def _fresh(model: ElmoModel) -> ElmoModel:
    """A new model with ``model``'s current weights and nothing kept between calls."""
    fresh = ElmoModel(model.config)
    fresh.load_state_dict(model.state_dict())
    return fresh.eval()


def _layers(model: ElmoModel, ids: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return torch.stack(model(input_ids=ids).hidden_states)


def _assert_changed_as_a_fresh_model(
    model: ElmoModel, ids: torch.Tensor, before: torch.Tensor, after: torch.Tensor | None = None
) -> None:
    """``model``'s layers (``after``, else computed now) moved away from ``before`` and are those
    of a fresh model with its weights."""
    after = _layers(model, ids) if after is None else after
    assert (after - before).abs().max() > 1e-3
    torch.testing.assert_close(after, _layers(_fresh(model), ids), atol=ATOL, rtol=0)


@pytest.mark.parametrize("implementation", ["fast", "fused"])
def test_outputs_after_a_fused_optimizer_step_are_those_of_the_new_weights(tmp_path, implementation):
    model = _model(tmp_path, clip=None)
    model.config.bilm_implementation = implementation
    ids = batch_to_ids(SENTENCES)
    before = _layers(model, ids)  # fills the token cache and the derived weights
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, fused=True)  # bumps no version counter
    model.train()
    torch.stack(model(input_ids=ids).hidden_states).square().mean().backward()
    optimizer.step()
    model.eval()
    _assert_changed_as_a_fresh_model(model, ids, before)


@pytest.mark.parametrize("implementation", ["fast", "fused"])
def test_a_no_grad_call_between_the_training_forward_and_a_fused_step_keeps_nothing_stale(tmp_path, implementation):
    """Was: the no-grad call (a metric on the batch) refilled the caches under the old weights' key,
    which the fused step left as it was: the next call gave the old weights' layers (off by up to 8)."""
    model = _model(tmp_path, clip=None)
    model.config.bilm_implementation = implementation
    ids = batch_to_ids(SENTENCES)
    before = _layers(model, ids)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05, fused=True)
    model.train()
    loss = torch.stack(model(input_ids=ids).hidden_states).square().mean()
    model.eval()
    _layers(model, ids)  # a no-grad call before the step
    loss.backward()
    optimizer.step()
    _assert_changed_as_a_fresh_model(model, ids, before)


def test_optimizer_steps_taken_at_once_in_two_threads_count_two():
    """Two models trained side by side in two threads: a thread switch between the read of the step
    count and the write of the count one more (forced here, at the write) must not lose the other
    thread's step (was: counted one, so a cache key made after the other step could equal one made
    after both, and a fused step's new weights be served stale). CPython 3.11 switches threads at
    certain instructions alone, none between the two (4 threads counting 200,000 steps each lost
    none), so tracing the opcodes pauses the first thread there."""
    count = elmo_cache._count_optimizer_step.__code__
    (write,) = [i.offset for i in dis.get_instructions(count) if i.opname == "STORE_GLOBAL"]
    paused, other_counted = threading.Event(), threading.Event()

    def pause_before_the_write(frame, event, arg):
        if event == "opcode" and frame.f_lasti == write:
            paused.set()
            other_counted.wait(timeout=1.0)  # alone after 1 s (the other step waits for this one)
        return pause_before_the_write

    def trace(frame, event, arg):
        if frame.f_code is count:
            frame.f_trace_opcodes = True
            return pause_before_the_write
        return None

    def step(trace_it: bool) -> None:
        parameter = torch.nn.Parameter(torch.ones(2))
        parameter.grad = torch.ones(2)
        optimizer = torch.optim.SGD([parameter], lr=0.1)
        sys.settrace(trace if trace_it else None)
        try:
            optimizer.step()
        finally:
            sys.settrace(None)

    before = elmo_cache.optimizer_steps()
    first = threading.Thread(target=step, args=(True,))
    first.start()
    assert paused.wait(timeout=10), "the first step never reached the count's write"
    other = threading.Thread(target=lambda: (step(False), other_counted.set()))
    other.start()
    other.join(timeout=10)
    first.join(timeout=10)
    assert elmo_cache.optimizer_steps() == before + 2


def test_autocast_and_float32_calls_do_not_share_token_vectors(tmp_path):
    model = _model(tmp_path)
    reference = _fresh(model)
    first, more = batch_to_ids(SENTENCES), batch_to_ids([["the", "new", "words"], ["cat"]])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = _layers(model, first)
        reference_low = _layers(reference, first)
    torch.testing.assert_close(low, reference_low, atol=0, rtol=0)
    for ids in (first, more):  # seen tokens, then new ones next to seen ones
        torch.testing.assert_close(_layers(model, ids), _layers(_fresh(model), ids), atol=ATOL, rtol=0)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        torch.testing.assert_close(_layers(model, more), _layers(_fresh(model), more), atol=0, rtol=0)


@pytest.mark.parametrize("path", ["plain", "fast with a hook on the char CNN"])
def test_bfloat16_autocast_runs_on_the_plain_token_layer_and_agrees_with_the_fast_path(tmp_path, path):
    model = _model(tmp_path)
    reference = _fresh(model)
    if path == "plain":
        model.config.bilm_implementation = "plain"
    else:
        model.char_cnn.highways[0].register_forward_hook(lambda module, inputs, output: None)
    ids = batch_to_ids(SENTENCES)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = _layers(model, ids)
        reference_low = _layers(reference, ids)
    assert low.dtype == torch.float32
    torch.testing.assert_close(low, reference_low, atol=ATOL, rtol=0)
    torch.testing.assert_close(low, _layers(reference, ids), atol=0.03, rtol=0)  # bf16 rounding: layers reach 1.5


def test_clear_caches_makes_a_data_edit_take_effect(tmp_path):
    model = _model(tmp_path)
    ids = batch_to_ids(SENTENCES)
    before = _layers(model, ids)
    for parameter in (model.char_cnn.projection.weight, model.bilm.forward_layers[0].projection.weight):
        parameter.data.mul_(0.5)  # no trace in the version counter
    model.clear_caches()
    _assert_changed_as_a_fresh_model(model, ids, before)


def test_forward_hooks_on_every_part_fire_on_the_default_path(tmp_path):
    model = _model(tmp_path)
    fired: list[str] = []
    parts = {
        "convolution": model.char_cnn.convolutions[0],
        "char_cnn": model.char_cnn,
        "lstm layer": model.bilm.forward_layers[1],
        "lstm projection": model.bilm.backward_layers[0].projection,
    }
    for name, part in parts.items():
        part.register_forward_hook(lambda *_, name=name: fired.append(name))
    ids = batch_to_ids(SENTENCES)
    expected = _layers(_fresh(model), ids)
    for _ in range(2):  # the second call's tokens are all seen: the char CNN must run anyway
        fired.clear()
        torch.testing.assert_close(_layers(model, ids), expected, atol=ATOL, rtol=0)
        assert set(fired) == set(parts)


def test_pruned_weights_are_the_ones_used(tmp_path):
    model = _model(tmp_path)
    ids = batch_to_ids(SENTENCES)
    before = _layers(model, ids)
    pruned = [model.char_cnn.convolutions[2], model.bilm.forward_layers[0].state_linear]
    for part in pruned:
        prune.l1_unstructured(part, "weight", amount=0.5)
    after = _layers(model, ids)
    for part in pruned:
        prune.remove(part, "weight")  # the pruned weights become the parameters
    _assert_changed_as_a_fresh_model(model, ids, before, after)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")  # torch.ao, still what users call
def test_a_dynamically_quantised_model_runs_and_stays_close(tmp_path):
    model = _model(tmp_path)
    ids = batch_to_ids(SENTENCES)
    quantised = torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
    reference, low = _layers(model, ids), _layers(quantised, ids)
    assert (low - reference).abs().max() < 0.05 * reference.abs().max()
