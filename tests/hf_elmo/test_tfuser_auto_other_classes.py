"""Every transformers Auto model class that ELMo has no model for (question answering, multiple
choice, seq2seq, image classification, ...; not only the masked and causal LM) refuses an ELMo model
in one line naming the Auto classes that load one; transformers' own error listed every config class
it knows, over many lines. The classes are transformers' own, not a list of ours."""

from __future__ import annotations

import pytest
import torch
from transformers import (
    AutoBackbone,
    AutoConfig,
    AutoModel,
    AutoModelForImageClassification,
    AutoModelForMultipleChoice,
    AutoModelForPreTraining,
    AutoModelForQuestionAnswering,
    AutoModelForSeq2SeqLM,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
    pipeline,
)

from hf_elmo import ElmoConfig, ElmoForBidirectionalLM, ElmoModel, ElmoPreTrainedModel
from hf_elmo.auto_refused import NoMaskedOrCausalLM, RefusedAutoModel, auto_model_classes
from hf_elmo.modeling_heads import ElmoForSequenceClassification, ElmoForTokenClassification
from hf_elmo.pretrained import DEFAULT_MODEL


def refusal(auto_name: str) -> str:
    return (
        rf"^ELMo has no model for {auto_name}: its Auto classes are AutoModel, AutoModelForPreTraining, "
        r"AutoModelForSequenceClassification, AutoModelForTokenClassification; build another head on AutoModel's "
        r"vectors$"
    )


@pytest.mark.parametrize(
    "auto",
    [AutoModelForQuestionAnswering, AutoModelForMultipleChoice, AutoModelForSeq2SeqLM, AutoModelForImageClassification],
)
def test_an_auto_class_elmo_has_no_model_for_refuses_the_shipped_model_and_its_config_in_one_line(auto):
    with pytest.raises(ValueError, match=refusal(auto.__name__)):
        auto.from_pretrained(DEFAULT_MODEL)
    with pytest.raises(ValueError, match=refusal(auto.__name__)):
        auto.from_config(AutoConfig.from_pretrained(DEFAULT_MODEL))


def test_the_backbone_auto_class_refuses_its_config_too():
    with pytest.raises(ValueError, match=refusal("AutoBackbone")):
        AutoBackbone.from_config(AutoConfig.from_pretrained(DEFAULT_MODEL))


def test_every_auto_model_class_of_transformers_loads_an_elmo_model_or_refuses_it():
    autos = auto_model_classes()
    assert {AutoModel, AutoModelForQuestionAnswering, AutoBackbone} <= set(autos)
    assert len(autos) > 40  # transformers 5 has some fifty
    for auto in autos:
        assert issubclass(auto._model_mapping[ElmoConfig], ElmoPreTrainedModel), auto.__name__


def test_the_auto_classes_elmo_has_a_model_for_still_load_it():
    assert AutoModel._model_mapping[ElmoConfig] is ElmoModel
    assert AutoModelForPreTraining._model_mapping[ElmoConfig] is ElmoForBidirectionalLM
    assert AutoModelForSequenceClassification._model_mapping[ElmoConfig] is ElmoForSequenceClassification
    assert AutoModelForTokenClassification._model_mapping[ElmoConfig] is ElmoForTokenClassification
    refused = [
        auto.__name__ for auto in auto_model_classes() if issubclass(auto._model_mapping[ElmoConfig], RefusedAutoModel)
    ]
    assert "AutoModelForMaskedLM" in refused and "AutoModelForQuestionAnswering" in refused
    assert not {"AutoModel", "AutoModelForPreTraining", "AutoModelForTokenClassification"} & set(refused)


def test_the_masked_and_causal_lm_keep_their_own_refusal():
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    assert AutoModelForMaskedLM._model_mapping[ElmoConfig] is NoMaskedOrCausalLM
    assert AutoModelForCausalLM._model_mapping[ElmoConfig] is NoMaskedOrCausalLM


def test_the_pipeline_says_the_refusal_in_place_of_every_config_class():
    with pytest.raises(ValueError) as refused:
        pipeline("table-question-answering", model=str(DEFAULT_MODEL))
    assert "ValueError: ELMo has no model for AutoModelForTableQuestionAnswering: " in str(refused.value)
    assert "Model type should be one of" not in str(refused.value)


def test_a_head_of_the_users_own_registered_later_replaces_the_refusal():
    class ElmoForQuestionAnswering(ElmoPreTrainedModel):
        config_class = ElmoConfig

        def __init__(self, config: ElmoConfig) -> None:
            super().__init__(config)
            self.qa_outputs = torch.nn.Linear(1, 2)
            self.post_init()

    refusal_class = AutoModelForQuestionAnswering._model_mapping[ElmoConfig]
    try:
        AutoModelForQuestionAnswering.register(ElmoConfig, ElmoForQuestionAnswering)
        config = ElmoConfig.from_pretrained(DEFAULT_MODEL)
        assert isinstance(AutoModelForQuestionAnswering.from_config(config), ElmoForQuestionAnswering)
    finally:
        AutoModelForQuestionAnswering.register(ElmoConfig, refusal_class, exist_ok=True)
