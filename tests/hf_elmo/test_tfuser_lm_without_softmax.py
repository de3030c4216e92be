"""``ElmoForBidirectionalLM`` (or ``AutoModelForPreTraining``) of a biLM saved without its softmax
(``ElmoModel``'s folder, original files converted) is refused in one line saying that it is a biLM
alone, which ElmoModel loads, where an LM with its softmax is, and how to build a fresh one (was:
"vocab_size must be set for ElmoForBidirectionalLM (the words of its softmax)", saying none of it)."""

from __future__ import annotations

import re

import pytest
import torch
from transformers import AutoModelForPreTraining

from hf_elmo import ElmoConfig, ElmoForBidirectionalLM, ElmoModel
from hf_elmo.configuration_elmo import ElmoConfigError
from tests.hf_elmo.test_heads import tiny_config

REFUSAL = (
    "ElmoConfig.vocab_size must be set for ElmoForBidirectionalLM (the words of its softmax): a config without it is "
    "a biLM's alone, which ElmoModel loads (an LM with its softmax is a folder of elmo pretrain, or the shipped "
    "model); to build a fresh softmax, set it to the number of words of your vocab.txt"
)


@pytest.fixture(scope="module")
def bilm_folder(tmp_path_factory):
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("bilm") / "elmo"
    ElmoModel(tiny_config()).save_pretrained(folder)
    return folder


@pytest.mark.parametrize("load", [ElmoForBidirectionalLM.from_pretrained, AutoModelForPreTraining.from_pretrained])
def test_the_lm_of_a_bilm_folder_is_refused_saying_what_it_holds_and_what_loads_it(bilm_folder, load):
    with pytest.raises(ElmoConfigError, match=f"^{re.escape(REFUSAL)}$"):
        load(str(bilm_folder))
    assert isinstance(ElmoModel.from_pretrained(bilm_folder), ElmoModel)


def test_a_config_without_vocab_size_builds_no_lm_and_with_it_a_fresh_one():
    with pytest.raises(ElmoConfigError, match=f"^{re.escape(REFUSAL)}$"):
        ElmoForBidirectionalLM(tiny_config())
    config: ElmoConfig = tiny_config(vocab_size=7)
    assert ElmoForBidirectionalLM(config).softmax.weight.shape[0] == 7
