"""An argument an ELMo model does not take, given to its forward or to from_pretrained, is one line
that names it and says what to do (was Python's "unexpected keyword argument", of ``__init__``
for from_pretrained)."""

from __future__ import annotations

import copy
import inspect
import re

import pytest
import torch
from transformers import AutoModel, Trainer

from hf_elmo import (
    ElmoConfig,
    ElmoForBidirectionalLM,
    ElmoForSequenceClassification,
    ElmoForTokenClassification,
    ElmoModel,
    ElmoTokenizer,
)
from tests.hf_elmo.test_heads import tiny_config

TAKEN = {
    ElmoModel: "input_ids, attention_mask, stateful, return_dict, output_hidden_states, output_attentions",
    ElmoForTokenClassification: "input_ids, attention_mask, labels, output_hidden_states, output_attentions, "
    "return_dict",
    ElmoForBidirectionalLM: "input_ids, lengths, labels, initial_state, full_softmax, return_dict, "
    "output_hidden_states, output_attentions",
}


@pytest.mark.parametrize("model_class", list(TAKEN))
def test_forward_refuses_a_bert_tokenizers_token_type_ids_naming_the_arguments_it_takes(model_class):
    model = model_class(tiny_config(num_labels=2, vocab_size=20)).eval()
    ids = ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt")["input_ids"]
    reads = (
        model.forward_inputs  # what the LM reads: test_tfuser_lm_collator_inputs.py
        if model_class is ElmoForBidirectionalLM
        else "ELMo reads one sentence a row of char ids: no token_type_ids, position_ids or inputs_embeds"
    )
    message = f"{model_class.__name__}.forward() takes no token_type_ids, foo: it takes {TAKEN[model_class]} ({reads})"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        model(input_ids=ids, token_type_ids=torch.zeros(2, 3, dtype=torch.long), foo=1)


def test_forward_keeps_its_own_signature_for_trainer_without_kwargs():
    """Trainer reads it: for the columns it keeps, and (a ``**kwargs``) whether to pass num_items_in_batch."""
    model = ElmoForSequenceClassification(tiny_config(num_labels=2))
    parameters = inspect.signature(model.forward).parameters
    assert list(parameters)[:3] == ["input_ids", "attention_mask", "labels"]
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    assert not Trainer(model=model).model_accepts_loss_kwargs


@pytest.fixture
def tiny_folder(tmp_path):
    torch.manual_seed(0)
    ElmoModel(tiny_config()).save_pretrained(tmp_path / "elmo")
    return tmp_path / "elmo"


@pytest.mark.parametrize("load", [ElmoModel.from_pretrained, AutoModel.from_pretrained])
def test_from_pretrained_refuses_a_misspelt_option_naming_it(tiny_folder, load):
    with pytest.raises(
        TypeError,
        match=r"^ElmoModel takes only its config, got statefull; from_pretrained passes on what is neither one of "
        r"its options nor a config field: check the spelling$",
    ):
        load(tiny_folder, statefull=True)


def test_from_pretrained_with_a_config_refuses_a_config_field_saying_to_set_it_on_that_config(tiny_folder):
    config = ElmoConfig.from_pretrained(tiny_folder)
    with pytest.raises(
        TypeError,
        match=r"^ElmoForTokenClassification takes only its config, got num_labels; num_labels is a field of the "
        r"config, which from_pretrained sets only on a config it loads: set it on the config you pass as config=",
    ):
        ElmoForTokenClassification.from_pretrained(tiny_folder, config=config, num_labels=3)


def test_from_pretrained_refuses_positional_options_saying_to_give_keywords(tiny_folder):
    with pytest.raises(
        TypeError, match=r"^ElmoModel takes only its config, got more positional arguments: .*keywords$"
    ):
        ElmoModel.from_pretrained(tiny_folder, True)


def test_a_model_is_still_built_copied_and_loaded_with_its_config_alone(tiny_folder):
    model = ElmoModel.from_pretrained(tiny_folder, stateful=True)
    assert model.config.stateful and copy.deepcopy(model).config.stateful
    assert isinstance(ElmoModel(config=model.config), ElmoModel)


@pytest.mark.parametrize("model_class", [ElmoModel, ElmoForTokenClassification])
def test_forward_drops_an_argument_it_does_not_take_given_as_none(model_class):
    """Generic code for other models (``token_type_ids=batch.get("token_type_ids")``) runs: None says nothing."""
    model = model_class(tiny_config(num_labels=2)).eval()
    batch = ElmoTokenizer()(["a b c", "d"], padding=True, return_tensors="pt")
    with torch.no_grad():
        expected = model(**batch)[0]
        got = model(**batch, token_type_ids=None, position_ids=None, inputs_embeds=None)[0]
    torch.testing.assert_close(got, expected, rtol=0, atol=0)


@pytest.mark.parametrize("model_class", [ElmoModel, ElmoForTokenClassification, ElmoForSequenceClassification])
def test_forward_takes_all_that_its_tokenizer_returns_and_reads_only_the_inputs(model_class):
    """``model(**tokenizer(..., return_offsets_mapping=True))`` runs: offsets, lengths and the special
    tokens mask are the tokenizer's own outputs, dropped (was a TypeError)."""
    model = model_class(tiny_config(num_labels=2)).eval()
    everything = ElmoTokenizer()(
        ["a b c", "d"],
        padding=True,
        return_tensors="pt",
        return_offsets_mapping=True,
        return_length=True,
        return_special_tokens_mask=True,
    )
    assert set(everything) == {"input_ids", "attention_mask", "offset_mapping", "length", "special_tokens_mask"}
    with torch.no_grad():
        expected = model(input_ids=everything["input_ids"], attention_mask=everything["attention_mask"])[0]
        torch.testing.assert_close(model(**everything)[0], expected, rtol=0, atol=0)
