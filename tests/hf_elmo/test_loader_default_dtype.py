"""Models built from the original files are float32 whatever ``torch.set_default_dtype`` says, as
``from_pretrained`` loads them (README, "dtype": float32 unless a dtype is passed)."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import Elmo, ElmoForBidirectionalLM, ElmoModel, batch_to_ids
from hf_elmo.original_files import converted_config


@pytest.fixture
def float64_default():
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def dtypes(module: torch.nn.Module) -> set[torch.dtype]:
    return {t.dtype for t in [*module.parameters(), *module.buffers()] if t.is_floating_point()}


@pytest.mark.usefixtures("float64_default")
def test_the_original_files_load_as_float32_after_set_default_dtype_float64(allennlp_fixture):
    """Was: from_allennlp, from_allennlp_with_softmax and Elmo(options, weights) built float64
    models there, while from_pretrained of the same files gave float32."""
    options, weights = allennlp_fixture / "options.json", allennlp_fixture / "lm_weights.hdf5"
    assert dtypes(ElmoModel.from_pretrained(allennlp_fixture)) == {torch.float32}
    assert dtypes(ElmoModel.from_allennlp(options, weights)) == {torch.float32}
    softmax = allennlp_fixture / "elmo_softmax_weights.hdf5"
    assert dtypes(ElmoForBidirectionalLM.from_allennlp_with_softmax(options, weights, softmax)) == {torch.float32}
    elmo = Elmo(options, weights, 2)
    assert dtypes(elmo) == {torch.float32}
    assert elmo(batch_to_ids([["a", "cat"]]))["elmo_representations"][1].dtype == torch.float32
    assert converted_config(options).dtype == torch.float32  # the config.json elmo convert writes
    assert torch.get_default_dtype() == torch.float64  # the caller's default is left as it was
