"""README's figure for sentences longer than the parity test's 200 tokens: the shipped model's ONNX graph drifts
further from eager there, past the 1e-5 + 1e-5 |value| that holds up to 200 tokens (was: not said; a sentence of
1000 tokens is 2.6e-5 off, 1.4 times that bound)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hf_elmo import batch_to_ids
from hf_elmo.export import export_model, export_reference, open_exported
from tests.conftest import REPO
from tests.hf_elmo.random_inputs import random_sentences

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
STATED = re.compile(
    r"Longer sentences drift further, .*?: ([\d.e-]+) at most for the shipped model's ONNX graph on "
    r"sentences of 300 to 1000 tokens"
)


@pytest.mark.slow
def test_the_shipped_models_onnx_graph_on_long_sentences_is_as_far_from_eager_as_readme_says(tmp_path, one_thread):
    from hf_elmo.loading import load_bilm
    from hf_elmo.pretrained import DEFAULT_MODEL

    (stated,) = STATED.findall(README)
    model, _ = load_bilm(str(DEFAULT_MODEL))
    exported = open_exported(export_model(model, tmp_path / "out", "onnx"))
    largest = 0.0
    for length in (300, 500, 1000):
        for seed in (0, 1):
            ids = batch_to_ids(random_sentences([length], seed=seed))
            layers, _ = exported.run(ids)
            largest = max(largest, float(np.abs(layers - export_reference(model, ids).numpy()).max()))
    assert 1e-5 < largest <= float(stated) * 1.05, largest  # past the bound of 1 to 200 tokens, at its 2 digits
