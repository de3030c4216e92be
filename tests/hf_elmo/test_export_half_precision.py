"""README's figures for the shipped model's ONNX float16 export hold on the float32 parity test's sweep of
lengths and batches: its largest difference from the eager float32 model, the values it reaches and the
least cosine similarity of a vector to the eager one (was: 4.9e-3, about 11 and 0.9999998, measured by no
test; the sweep gives 5.4e-3, 13.0 and 0.9999996); and the tests' tiny random model's torch-export in float16 and
bfloat16 on the same sweep (was: 2.1e-3 and 1.5e-2, measured by no test; the sweep gives 3.2e-3 and 2.1e-2)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hf_elmo import batch_to_ids
from hf_elmo.export import export_model, export_reference, open_exported
from tests.conftest import REPO
from tests.hf_elmo.random_inputs import clipped_random_model, random_sentences
from tests.hf_elmo.test_export import SHIPPED_SWEEP

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
STATED = re.compile(
    r"([\d.e-]+) at most for the shipped model in ONNX float16, whose values reach about (\d+) \(cosine similarity "
    r"of every vector to the float32 one at least ([\d.]+);"
)
STATED_TINY = re.compile(r"([\d.e-]+) \(float16\) and ([\d.e-]+) \(bfloat16\) for the tests' tiny random model through")


@pytest.mark.slow
def test_the_shipped_models_float16_onnx_export_is_as_far_from_eager_as_readme_says(tmp_path, one_thread):
    from hf_elmo.loading import load_bilm
    from hf_elmo.pretrained import DEFAULT_MODEL

    ((difference, reach, cosine),) = STATED.findall(README)
    model, _ = load_bilm(str(DEFAULT_MODEL))
    exported = open_exported(export_model(model, tmp_path / "out", "onnx", "float16"))
    largest, values, least = 0.0, 0.0, 1.0
    for seed, lengths in enumerate(SHIPPED_SWEEP):
        ids = batch_to_ids(random_sentences(lengths, seed=seed))
        layers, mask = exported.run(ids)
        real = mask[:, None, :].repeat(layers.shape[1], axis=1)  # (B, L+1, T): the vectors of real tokens
        actual, expected = layers.astype(np.float32)[real], export_reference(model, ids).numpy()[real]
        largest = max(largest, float(np.abs(actual - expected).max()))
        values = max(values, float(np.abs(expected).max()))
        norms = np.linalg.norm(actual, axis=-1) * np.linalg.norm(expected, axis=-1)
        least = min(least, float(((actual * expected).sum(-1) / norms).min()))
    assert largest <= float(difference) * 1.05, largest  # the stated figure, at its 2 digits
    assert round(values) == int(reach), values
    assert least >= float(cosine), least


@pytest.mark.slow
def test_the_tiny_models_half_precision_torch_exports_are_as_far_from_eager_as_readme_says(tmp_path, one_thread):
    model = clipped_random_model()
    ((float16, bfloat16),) = STATED_TINY.findall(README)
    for dtype, stated in (("float16", float16), ("bfloat16", bfloat16)):
        exported = open_exported(export_model(model, tmp_path / dtype, "torch-export", dtype))
        largest = 0.0
        for seed, lengths in enumerate(SHIPPED_SWEEP):
            ids = batch_to_ids(random_sentences(lengths, seed=seed))
            layers, _ = exported.run(ids)
            largest = max(largest, float((layers.float() - export_reference(model, ids)).abs().max()))
        assert float(stated) * 0.9 <= largest <= float(stated) * 1.05, (dtype, largest)  # at its 2 digits
