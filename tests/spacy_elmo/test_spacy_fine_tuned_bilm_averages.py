"""A fine-tuned biLM under ``nlp.use_params(optimizer.averages)`` (``spacy train`` evaluates and saves so with
``[training.optimizer] use_averages = true``) runs, and is saved with, the averages of its weights, as every other
component is; its last weights come back after, buffers (``warm_h``, ``warm_c``) untouched (was: thinc's
``PyTorchShim.use_params`` reads ``pytorch_{id}_{name}`` keys, which no optimizer writes, so the biLM kept its last
weights, silently, beside the other components' averages)."""

import spacy
import torch
from thinc.api import Adam

from spacy_elmo.bilm import _shim
from tests.spacy_elmo.pipeline_helpers import loader_settings, textcat_config, training_examples


def fine_tuned(tiny_elmo_dir):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"@architectures": "spacy-elmo.ElmoBiLm.v3", "frozen": False}})
    nlp.add_pipe("textcat", config=textcat_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01, use_averages=True)
    for _ in range(3):
        nlp.update(examples, sgd=optimizer)
    return nlp, optimizer


def weights(nlp):
    return {k: v.detach().clone() for k, v in _shim(nlp.get_pipe("elmo").model).elmo.state_dict().items()}


def test_a_fine_tuned_biLM_runs_and_is_saved_with_its_averages_under_use_params(tiny_elmo_dir):
    nlp, optimizer = fine_tuned(tiny_elmo_dir)
    shim = _shim(nlp.get_pipe("elmo").model)
    averages = {name: torch.from_numpy(optimizer.averages[(shim.id, name)]) for name, _ in shim.elmo.named_parameters()}
    last, text = weights(nlp), "Alice lives in Paris ."
    stepped = [name for name in averages if not torch.equal(averages[name], last[name])]
    assert "bilm.forward_layers.0.input_linear.weight" in stepped
    outside = nlp(text)._.elmo
    with nlp.use_params(optimizer.averages):
        used = weights(nlp)
        for name, average in averages.items():
            assert torch.equal(used[name], average), name  # was: the last weights
        for name in ("warm_h", "warm_c"):
            assert torch.equal(used[name], last[name])
        inside = nlp(text)._.elmo
        saved = nlp.to_bytes()
    assert inside.bilm.digest != outside.bilm.digest  # the digest is of the weights in use
    assert not torch.equal(torch.as_tensor(inside.layers), torch.as_tensor(outside.layers))
    after = weights(nlp)
    assert all(torch.equal(after[name], last[name]) for name in last)  # the last weights are back
    assert nlp(text)._.elmo.bilm == outside.bilm
    loaded = spacy.blank("en")
    loaded.add_pipe("elmo", config={"model": {"@architectures": "spacy-elmo.ElmoBiLm.v3", "frozen": False}})
    loaded.add_pipe("textcat", config=textcat_config())
    loaded.from_bytes(saved)
    reloaded = weights(loaded)
    assert all(torch.equal(reloaded[name], average) for name, average in averages.items())  # saved: the averages
