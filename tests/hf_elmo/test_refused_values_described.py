"""More refusals that named a value by its type's name alone ("got int", "holds a list") name it as every
other refusal does (``messages.described``): "None", "the int 5", "the list [1, 2]"."""

from __future__ import annotations

import re

import pytest
import torch

from hf_elmo import Elmo, ElmoModel, ElmoTokenizer
from hf_elmo.training.checkpoints import _torch_load
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize("text, shown", [(5, "the int 5"), (None, "None")], ids=str)
def test_the_tokenizer_names_an_input_that_is_no_text_by_its_value(text, shown):
    """Was: "..., got int" (and "got NoneType")."""
    with pytest.raises(TypeError, match=re.escape(f"a list of such lists, got {shown}") + "$"):
        ElmoTokenizer()(text)


def test_elmo_names_a_module_that_is_no_elmo_model_by_its_value():
    """Was: "Elmo(module=...) takes an hf_elmo ElmoModel (...), got int"."""
    with pytest.raises(TypeError, match=r"^Elmo\(module=\.\.\.\) takes an hf_elmo ElmoModel .*, got the int 3$"):
        Elmo(None, None, 1, module=3)  # type: ignore[arg-type]


def test_set_input_embeddings_names_a_value_that_is_no_embedding_by_its_value():
    """Was: "the input embeddings must be an nn.Embedding of shape ..., got int"."""
    with pytest.raises(ValueError, match=r"^the input embeddings must be an nn\.Embedding .*, got the int 3$"):
        ElmoModel(tiny_config()).set_input_embeddings(3)  # type: ignore[arg-type]


def test_a_checkpoint_file_holding_no_dict_is_damaged_naming_what_it_holds(tmp_path):
    """Was: "... is damaged (TypeError: holds a list, not a checkpoint)"."""
    path = tmp_path / "checkpoint.pt"
    torch.save([1, 2], path)
    with pytest.raises(ValueError, match=re.escape(f"{path} is damaged (TypeError: holds the list [1, 2], not a")):
        _torch_load(path, tmp_path)
