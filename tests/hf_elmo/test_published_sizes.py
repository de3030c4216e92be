"""The sizes README.md and BENCHMARKS.md state, computed from the shipped model and the presets: its
weight count, the LM's with a 50,000-word softmax, the bytes its steps leave a token, and the token
cache's table and keys at its default size."""

from __future__ import annotations

import re
import tracemalloc

import pytest
import torch

from hf_elmo import ElmoConfig, ElmoModel, batch_to_ids
from hf_elmo.elmo_cache import TokenLayerCache
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.pretrained import DEFAULT_MODEL
from hf_elmo.training.settings import PRESETS
from tests.conftest import REPO

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())  # sentences on one line
BENCHMARKS = " ".join((REPO / "BENCHMARKS.md").read_text(encoding="utf-8").split())


def stated(pattern: str, text: str = README) -> float:
    """The number the one match of ``pattern`` (its group) states."""
    found = re.findall(pattern, text)
    assert len(found) == 1, (pattern, found)
    return float(found[0].replace(",", ""))


def test_the_shipped_models_weights_are_as_many_as_the_readme_says():
    weights = ElmoModel.from_pretrained(str(DEFAULT_MODEL)).num_parameters()
    assert stated(r"the shipped model's ([\d.]+)M float32 weights") == round(weights / 1e6, 1)


def test_the_lm_of_the_shipped_shape_with_a_50000_word_softmax_has_the_parameters_benchmarks_says():
    config = ElmoConfig.from_pretrained(str(DEFAULT_MODEL))
    config.vocab_size = 50_000
    parameters = ElmoForBidirectionalLM(config).num_parameters()
    said = stated(r"1 highway; ([\d.]+)M parameters with the 50,000-word softmax", BENCHMARKS)
    assert said == round(parameters / 1e6, 1)


def test_what_the_steps_leave_a_token_is_the_readmes_kilobytes_for_the_shipped_model():
    config = ElmoConfig.from_pretrained(str(DEFAULT_MODEL))
    layers = config.n_layers + 1
    assert "2 x P x (L+1) x 4 bytes a token" in README
    assert stated(r"2 x P x \(L\+1\) x 4 bytes a token \((\d+) KB for the shipped model\)") == pytest.approx(
        2 * config.projection_dim * layers * 4 / 1024, rel=0.05
    )


def test_the_token_caches_table_is_the_readmes_megabytes_at_its_default_size():
    rows = TokenLayerCache().max_types
    assert f"keeps the token layer of the last {rows:,} distinct tokens" in README
    found = re.findall(
        rf"a table of {rows:,} x P floats, (\d+) MB for the small model and (\d+) MB for the original", README
    )
    assert len(found) == 1, found
    for preset, megabytes in zip(["small", "original"], found[0]):
        assert float(megabytes) == pytest.approx(rows * PRESETS[preset]["projection_dim"] * 4 / 1e6, rel=0.05), preset


def test_the_shipped_weights_file_is_the_readmes_megabytes_of_fp16_with_the_softmax():
    weights = DEFAULT_MODEL / "model.safetensors"
    assert stated(r"\(([\d.]+) MB of fp16 safetensors, its softmax included") == round(weights.stat().st_size / 1e6, 1)
    lm = ElmoForBidirectionalLM.from_pretrained(str(DEFAULT_MODEL))
    # two bytes a parameter, the softmax's among them, and a header of under 64 KiB
    assert 0 <= weights.stat().st_size - 2 * lm.num_parameters() < 2**16


class _CharCnn(torch.nn.Module):
    """A char CNN's stand-in for the cache: a parameter (its key) and rows of zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, char_ids: torch.Tensor) -> torch.Tensor:
        return torch.zeros(len(char_ids), 4)


def test_the_token_caches_keys_take_the_readmes_megabytes_when_full():
    """Besides its table: each token's char ids as its key, and the LRU's bookkeeping."""
    cache, char_cnn = TokenLayerCache(), _CharCnn()
    char_ids = batch_to_ids([[f"w{i}x"] for i in range(cache.max_types)])[:, 0]  # one distinct token a row
    tracemalloc.start()
    try:
        with torch.inference_mode():
            for start in range(0, len(char_ids), 5000):
                cache.token_layer(char_ids[start : start + 5000], char_cnn)
        keys = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(cache) == cache.max_types
    assert stated(r"char ids at two bytes a slot: (\d+) MB more in all, measured") == pytest.approx(
        keys / 1e6, rel=0.15
    )
