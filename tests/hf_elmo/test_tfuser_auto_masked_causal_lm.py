"""``AutoModelForMaskedLM`` and ``AutoModelForCausalLM`` of an ELMo model (and so the fill-mask and
text-generation pipelines) refuse it in one line saying what ELMo's LM is and which Auto class loads
what; transformers' own error listed every config class it knows, over many lines."""

from __future__ import annotations

import pytest
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, pipeline

from hf_elmo.pretrained import DEFAULT_MODEL

REFUSAL = (
    r"^ELMo's biLM is neither a masked nor a causal LM: its forward and backward LSTMs each predict the next and "
    r"the previous word over a word softmax, for perplexity, and generate no text; load its vectors with AutoModel, "
    r"the LM with its softmax with AutoModelForPreTraining \(ElmoForBidirectionalLM\)$"
)


@pytest.mark.parametrize("auto", [AutoModelForMaskedLM, AutoModelForCausalLM])
def test_the_auto_class_refuses_the_shipped_model_and_its_config_in_one_line(auto):
    with pytest.raises(ValueError, match=REFUSAL):
        auto.from_pretrained(DEFAULT_MODEL)
    with pytest.raises(ValueError, match=REFUSAL):
        auto.from_config(AutoConfig.from_pretrained(DEFAULT_MODEL))


@pytest.mark.parametrize("task", ["fill-mask", "text-generation"])
def test_the_pipeline_says_the_refusal_in_place_of_every_config_class(task):
    with pytest.raises(ValueError) as refused:
        pipeline(task, model=str(DEFAULT_MODEL))
    assert "ValueError: ELMo's biLM is neither a masked nor a causal LM: " in str(refused.value)
    assert "Model type should be one of" not in str(refused.value)
