"""ElmoModel against an independent NumPy forward pass on random original-format weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hf_elmo import ElmoModel, batch_to_ids
from tests.numpy_elmo import NumpyElmo, small_options, write_random_original

SENTENCES = [
    ["a"],  # a one-character token, alone
    ["The", "x", "Supercalifragilisticexpialidocious" * 2],  # 68 characters: truncated at 48 bytes
    ["Über", "naïve", "東京都", "😀", "end", "."],  # multi-byte UTF-8
    ["a" * 60, "b" * 47, "c" * 48, "d" * 49],  # around the 48-byte cut
]
SIZES = {
    "skip-relu": small_options(),
    "no-skip-tanh-3-layers": small_options(skip=False, activation="tanh", n_layers=3, n_highway=2),
    "wide-filters-261-chars": small_options(filters=((1, 8), (5, 16), (7, 8)), n_characters=261, dim=48, proj=12),
    "no-highway-one-layer": small_options(n_highway=0, n_layers=1, clip=0.5),
}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_padded_batch_matches_numpy_reference_per_sentence(tmp_path, size):
    write_random_original(tmp_path, SIZES[size], seed=len(size))
    reference = NumpyElmo(tmp_path / "options.json", tmp_path / "weights.hdf5")
    model = ElmoModel.from_allennlp(tmp_path / "options.json", tmp_path / "weights.hdf5")
    with torch.inference_mode():
        out = model(input_ids=batch_to_ids(SENTENCES))
    layers = torch.stack(out.hidden_states).numpy()  # (L+1, B, T, 2P)
    for row, tokens in enumerate(SENTENCES):
        expected = reference(tokens)
        np.testing.assert_allclose(layers[:, row, : len(tokens)], expected, atol=1e-5, rtol=0)
        assert not layers[:, row, len(tokens) :].any(), "padding positions must be zero"
