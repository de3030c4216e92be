"""Parity with the reference outputs that bilm-tf computed for the two fixture models."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch

from hf_elmo import ElmoModel, batch_to_ids

FIXTURES = {
    # name: (folder below shared/fixtures, sentences file)
    "allennlp-skip-connections": ("elmo-allennlp", "sentences.json"),
    "bilm-tf-no-skip-connections": ("elmo-bilm-tf/model", "lm_embeddings_sentences.json"),
}
TOLERANCE = 1e-5


def _load(shared: Path, name: str):
    folder, sentences_file = FIXTURES[name]
    root = shared / "fixtures" / folder
    model = ElmoModel.from_allennlp(root / "options.json", root / "lm_weights.hdf5")
    sentences = json.loads((root / sentences_file).read_text())
    references = []
    for k in range(len(sentences)):
        with h5py.File(root / f"lm_embeddings_{k}.hdf5", "r") as handle:
            references.append({key: np.concatenate(handle[key][...], axis=-1) for key in handle})
    return model, sentences, references


def _batch(sentences, i):
    return [sentences[k][i].split() for k in range(len(sentences))]


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_stateful_replay_of_the_ten_reference_batches_matches_bilm_tf(shared, name):
    model, sentences, references = _load(shared, name)
    assert model.config.use_skip_connections == name.startswith("allennlp")
    worst = 0.0
    with torch.inference_mode():
        for i in range(len(sentences[0])):
            batch = _batch(sentences, i)
            out = model(input_ids=batch_to_ids(batch), stateful=True)
            for k, tokens in enumerate(batch):
                expected = references[k][str(i)]
                got = out.last_hidden_state[k, : len(tokens)].numpy()
                assert got.shape == expected.shape
                assert not out.last_hidden_state[k, len(tokens) :].any(), "padding must be zero"
                worst = max(worst, float(np.abs(got - expected).max()))
    assert worst < TOLERANCE, f"max abs diff {worst:.2e}"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_first_reference_batch_matches_in_stateless_mode(shared, name):
    model, sentences, references = _load(shared, name)
    batch = _batch(sentences, 0)
    with torch.inference_mode():
        out = model(input_ids=batch_to_ids(batch))  # default: stateless, fresh zero state
    for k, tokens in enumerate(batch):
        np.testing.assert_allclose(out.last_hidden_state[k, : len(tokens)].numpy(), references[k]["0"], atol=TOLERANCE)


def test_later_batches_depend_on_carried_state_as_in_the_reference(shared):
    """Batch 1 matches the reference only after batch 0 was run statefully (order dependence)."""
    model, sentences, references = _load(shared, "allennlp-skip-connections")
    batch = _batch(sentences, 1)
    with torch.inference_mode():
        fresh = model(input_ids=batch_to_ids(batch)).last_hidden_state
        model(input_ids=batch_to_ids(_batch(sentences, 0)), stateful=True)
        carried = model(input_ids=batch_to_ids(batch), stateful=True).last_hidden_state
        model.reset_states()
        after_reset = model(input_ids=batch_to_ids(batch), stateful=True).last_hidden_state
    n = len(batch[0])
    expected = references[0]["1"]
    assert np.abs(carried[0, :n].numpy() - expected).max() < TOLERANCE
    assert np.abs(fresh[0, :n].numpy() - expected).max() > 1e-3, "fresh state must differ from carried"
    torch.testing.assert_close(after_reset, fresh, rtol=0, atol=0)
