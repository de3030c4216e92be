"""The GPU path (``spacy train --gpu-id 0``): marked ``gpu``, not run where there is no CUDA device."""

import numpy as np
import pytest
import spacy
import torch

from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, training_examples


def pipeline(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    return nlp, examples, nlp.initialize(lambda: examples)


@pytest.mark.gpu
def test_layers_on_gpu_equal_cpu_and_training_steps_run(tiny_elmo_dir):
    pytest.importorskip("cupy")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    cpu_nlp, examples, _ = pipeline(tiny_elmo_dir)
    texts = [eg.reference.text for eg in examples]
    expected = [doc._.elmo.layers for doc in cpu_nlp.pipe(texts)]
    spacy.require_gpu(0)
    try:
        nlp, examples, optimizer = pipeline(tiny_elmo_dir)
        assert nlp.get_pipe("elmo").model.shims[0].elmo.warm_h.is_cuda
        for doc, cpu_layers in zip(nlp.pipe(texts), expected):
            np.testing.assert_allclose(doc._.elmo.layers.get(), cpu_layers, atol=1e-5)
        losses = {}
        for _ in range(3):
            nlp.update(examples, sgd=optimizer, losses=losses)
        assert np.isfinite(losses["ner"])
    finally:
        spacy.require_cpu()
