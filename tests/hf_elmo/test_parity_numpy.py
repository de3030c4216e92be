"""ElmoModel (its fast and plain paths) against an independent NumPy forward pass on random original-format weights."""

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
    ["<S>", "x", "</S>", "ab日"],  # the literal markers are the markers; a character cut at small widths
]
SIZES = {
    "skip-relu": small_options(),
    "no-skip-tanh-3-layers": small_options(skip=False, activation="tanh", n_layers=3, n_highway=2),
    "wide-filters-261-chars": small_options(filters=((1, 8), (5, 16), (7, 8)), n_characters=261, dim=48, proj=12),
    "no-highway-one-layer": small_options(n_highway=0, n_layers=1, clip=0.5),
    # Shapes the fuzzing of every path found no fault in, kept as the cheapest guard: tokens of 5
    # char slots with a filter as wide, the cell clipped alone; 64 slots, the projection clipped
    # alone, one-unit projection and char embedding.
    "width-5-cell-clip-only": small_options(
        filters=((1, 4), (5, 8)), max_characters_per_token=5, clip=0.5, proj_clip=None, n_layers=3
    ),
    "width-64-proj-clip-only": small_options(
        filters=((2, 3), (7, 5)), max_characters_per_token=64, clip=None, proj_clip=0.3, proj=1, char_dim=1
    ),
}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_padded_batch_matches_numpy_reference_per_sentence(tmp_path, size):
    write_random_original(tmp_path, SIZES[size], seed=len(size))
    reference = NumpyElmo(tmp_path / "options.json", tmp_path / "weights.hdf5")
    model = ElmoModel.from_allennlp(tmp_path / "options.json", tmp_path / "weights.hdf5")
    ids = batch_to_ids(SENTENCES, model.config.max_characters_per_token)
    for implementation in ("fast", "plain"):
        model.config.bilm_implementation = implementation
        with torch.inference_mode():
            out = model(input_ids=ids)
        layers = torch.stack(out.hidden_states).numpy()  # (L+1, B, T, 2P)
        for row, tokens in enumerate(SENTENCES):
            expected = reference(tokens)
            np.testing.assert_allclose(
                layers[:, row, : len(tokens)], expected, atol=1e-5, rtol=0, err_msg=implementation
            )
            assert not layers[:, row, len(tokens) :].any(), "padding positions must be zero"
