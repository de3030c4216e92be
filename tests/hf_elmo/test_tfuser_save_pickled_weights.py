"""``save_pretrained(..., safe_serialization=False)``, transformers 4's way to ask for pickled weights
(``pytorch_model.bin``), is refused in one line before anything is written: ELMo models load only
safetensors, as ``from_pretrained(use_safetensors=False)`` says. transformers 5 takes the argument no more
and saved safetensors silently, where the caller asked for a ``.bin`` file."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoForSequenceClassification, ElmoModel
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize(
    "build", [lambda: ElmoModel(tiny_config()), lambda: ElmoForSequenceClassification(tiny_config())]
)
def test_pickled_weights_are_refused_in_one_line_before_anything_is_written(build, tmp_path):
    with pytest.raises(
        ValueError,
        match=r"^safe_serialization=False asks for pickled weights \(pytorch_model\.bin\), which "
        r"ELMo models never write or load \(only safetensors\); leave safe_serialization unset$",
    ):
        build().save_pretrained(tmp_path / "model", safe_serialization=False)
    assert not (tmp_path / "model").exists()


def test_safetensors_asked_for_are_saved(tmp_path):
    ElmoModel(tiny_config()).save_pretrained(tmp_path / "model", safe_serialization=True)
    assert isinstance(ElmoModel.from_pretrained(tmp_path / "model"), ElmoModel)
