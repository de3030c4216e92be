"""``spacy-elmo.ElmoBiLm.v2``'s ``mixed_precision`` and ``grad_scaler_config``: parsed from a config,
handed to the shim, and on CPU (where autocast is off) the same float32 numbers as without them."""

import numpy as np
import pytest
import spacy
import torch
from thinc.api import Config, PyTorchGradScaler
from thinc.compat import has_torch_amp

from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, training_examples

MIXED = """
[model]
@architectures = "spacy-elmo.ElmoBiLm.v2"
frozen = false
token_budget = 4096
mixed_precision = true

[model.grad_scaler_config]
init_scale = 1024.0
growth_interval = 3
"""


def pipeline(tiny_elmo_dir, model_cfg):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": model_cfg, "cache_mb": 0})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    return nlp, examples, optimizer


def test_the_settings_reach_the_shim_and_the_default_is_full_precision(tiny_elmo_dir):
    mixed, _, _ = pipeline(tiny_elmo_dir, Config().from_str(MIXED)["model"])
    shim = mixed.get_pipe("elmo").model.shims[0]
    assert shim.mixed_precision is True
    assert shim.grad_scaler._enabled == has_torch_amp  # off without CUDA: CPU runs float32
    assert float(shim.grad_scaler._scale) == 1024.0
    assert shim.grad_scaler._growth_interval == 3
    default = spacy.blank("en").add_pipe("elmo").model.shims[0]
    assert default.mixed_precision is False and not default.grad_scaler._enabled


def test_mixed_precision_on_cpu_fine_tunes_in_float32_exactly_as_without_it(tiny_elmo_dir):
    full_cfg = Config().from_str(MIXED)["model"]
    full_cfg["mixed_precision"] = False
    runs = []
    for model_cfg in (Config().from_str(MIXED)["model"], full_cfg):
        nlp, examples, optimizer = pipeline(tiny_elmo_dir, model_cfg)
        doc = nlp("Alice lives in Paris .")
        assert doc._.elmo.layers.dtype == np.float32
        for _ in range(2):
            nlp.update(examples, sgd=optimizer)
        elmo = nlp.get_pipe("elmo").model.shims[0].elmo
        assert next(elmo.parameters()).dtype == torch.float32
        runs.append({k: v.clone() for k, v in elmo.state_dict().items()})
    mixed, full = runs
    # the scale is a power of two: scaling and unscaling the gradients is exact
    assert all(torch.equal(mixed[k], full[k]) for k in full)


@pytest.mark.gpu
def test_mixed_precision_on_gpu_runs_under_autocast_and_hands_on_float32_layers(tiny_elmo_dir):
    pytest.importorskip("cupy")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    cpu, examples, _ = pipeline(tiny_elmo_dir, Config().from_str(MIXED)["model"])
    texts = [eg.reference.text for eg in examples]
    expected = [doc._.elmo.layers for doc in cpu.pipe(texts)]
    spacy.require_gpu(0)
    try:
        nlp, examples, optimizer = pipeline(tiny_elmo_dir, Config().from_str(MIXED)["model"])
        for doc, cpu_layers in zip(nlp.pipe(texts), expected):
            assert doc._.elmo.layers.dtype == np.float32
            np.testing.assert_allclose(doc._.elmo.layers.get(), cpu_layers, atol=2e-3)  # float16 matmuls
        losses = {}
        for _ in range(2):
            nlp.update(examples, sgd=optimizer, losses=losses)
        assert np.isfinite(losses["ner"])
    finally:
        spacy.require_cpu()


class _CpuGradScaler(PyTorchGradScaler):
    """Thinc's gradient scaler on CPU tensors (Thinc's refuses them), to scale where CUDA is not."""

    def _scale_tensor(self, tensor, scale_per_device, inplace):
        return tensor.mul_(self._scale) if inplace else tensor * self._scale


def test_gradients_of_two_batches_accumulated_under_a_grad_scaler_are_unscaled_once(tiny_elmo_dir):
    """Two batches backpropagated before one step (``[training] accumulate_gradient = 2``) give the
    biLM the same gradients with a gradient scaler as without (was: each backward pass unscaled all
    the gradients the parameters held, so the first batch's were divided by the scale again: lost)."""
    nlp, examples, optimizer = pipeline(tiny_elmo_dir, Config().from_str(MIXED)["model"])
    for _ in range(2):  # ner's output layer starts at zero: no gradient reaches the biLM at first
        nlp.update(examples, sgd=optimizer)
    shim = nlp.get_pipe("elmo").model.shims[0]
    grads = []
    for scaler in (_CpuGradScaler(enabled=True, init_scale=1024.0), PyTorchGradScaler(enabled=False)):
        shim._grad_scaler = scaler
        for parameter in shim.elmo.parameters():
            parameter.grad = None
        spacy.util.fix_random_seed(1)  # ner's update draws its oracle cut at random
        for batch in (examples[:3], examples[3:]):
            nlp.update(batch, sgd=False)  # as spacy train: the gradients stay on the parameters
        grads.append({name: p.grad.clone() for name, p in shim.elmo.named_parameters() if p.grad is not None})
    scaled, unscaled = grads
    assert scaled.keys() == unscaled.keys() and unscaled
    for name, grad in unscaled.items():
        torch.testing.assert_close(scaled[name], grad, rtol=1e-5, atol=1e-9, msg=name)
