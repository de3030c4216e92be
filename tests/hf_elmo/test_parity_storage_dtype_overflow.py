"""``save_pretrained(storage_dtype=torch.float16)`` (and ``elmo pretrain --storage-dtype float16``) of a model
holding a value beyond float16's range is refused in one line naming the weight, before anything is written
(was: the weight was stored as inf, and the folder then failed to load as "a damaged file")."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoModel
from hf_elmo.training.output import round_to_storage
from tests.hf_elmo.test_heads import tiny_config


def _model_with_a_large_weight() -> ElmoModel:
    torch.manual_seed(0)
    model = ElmoModel(tiny_config())
    model.post_init()
    with torch.no_grad():
        model.char_cnn.projection.bias[3] = -70_000.0
    return model


def test_storing_a_weight_beyond_float16s_range_in_float16_is_refused_naming_it(tmp_path):
    folder = tmp_path / "model"
    with pytest.raises(ValueError) as refused:
        _model_with_a_large_weight().save_pretrained(folder, storage_dtype=torch.float16)
    assert str(refused.value) == (
        "char_cnn.projection.bias holds 70000, beyond the largest float16 (65504): stored as float16 it would be "
        "inf; store the weights as bfloat16 or float32 (storage_dtype, elmo pretrain --storage-dtype)"
    )
    assert not folder.exists()


def test_bfloat16_storage_of_such_a_model_saves_and_loads(tmp_path):
    model = _model_with_a_large_weight()
    model.save_pretrained(tmp_path / "model", storage_dtype=torch.bfloat16)
    loaded = ElmoModel.from_pretrained(tmp_path / "model")
    assert float(loaded.char_cnn.projection.bias.detach()[3]) == -70_144.0


def test_pretrains_rounding_to_float16_storage_is_refused_so_too():
    """``elmo pretrain`` rounds the weights to the storage dtype for the card's perplexity before it saves."""
    model = _model_with_a_large_weight()
    with pytest.raises(ValueError, match=r"^char_cnn\.projection\.bias holds 70000, beyond the largest float16 "):
        round_to_storage(model, torch.float16)
