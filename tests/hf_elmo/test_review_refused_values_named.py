"""The refusals that named a value by its type's name alone ("a NoneType", "not a int", "got list") name it as
every other refusal does (``messages.described``): "None", "the int 3", "the list [6, 3]"."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoModel, ElmoTokenizer, batch_to_ids
from hf_elmo.embed import embed_file
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize(
    "sentence, shown", [(None, "None"), (3, "the int 3"), (["b", "c", "d"], r"the list \['b', 'c', 'd'\]")], ids=str
)
def test_the_tokenizer_names_a_sentence_that_is_no_text_by_its_value(sentence, shown):
    """Was: "sentence 1 of the batch is a NoneType, not a text (str)" (and "a int", "a list")."""
    with pytest.raises(TypeError, match=rf"^sentence 1 of the batch is {shown}, not a text \(str\); pass pre-split"):
        ElmoTokenizer()(["a", sentence])


def test_the_model_names_an_attention_mask_that_is_no_tensor_by_its_value():
    """Was: "attention_mask must be a torch.Tensor, got list"."""
    model = ElmoModel(tiny_config())
    with pytest.raises(TypeError, match=r"^attention_mask must be a torch\.Tensor, got the list \[\[1, 1\]\]$"):
        model(batch_to_ids([["a", "b"]]), attention_mask=[[1, 1]])


def test_embed_file_names_an_input_that_is_no_path_by_its_value(tmp_path):
    """Was: "embed_file() takes the input file's path, not a int"."""
    with pytest.raises(TypeError, match=r"^embed_file\(\) takes the input file's path, not the int 3 \(ElmoEmbedder"):
        embed_file(ElmoModel(tiny_config()), 3, tmp_path / "out.hdf5")
    assert not any(tmp_path.iterdir())


def test_the_spacy_bilm_names_what_a_loader_returned_instead_of_a_model():
    """Was: "an ELMo loader must return an hf_elmo.ElmoModel, got NoneType"."""
    pytest.importorskip("spacy")
    from spacy_elmo.bilm import widths

    with pytest.raises(TypeError, match=r"^an ELMo loader must return an hf_elmo\.ElmoModel, got None$"):
        widths(None)


@pytest.mark.parametrize(
    "input_ids, shown",
    [([[[260, 98, 261]]], r"the list \[\[\[260, 98, 261\]\]\]"), (None, "None")],
    ids=["list", "none"],
)
def test_the_model_names_input_ids_that_are_no_tensor_by_their_value(input_ids, shown):
    """Was: "got builtins.list" (and "builtins.NoneType")."""
    with pytest.raises(
        TypeError, match=rf"^input_ids must be a torch\.Tensor of char ids \(batch, tokens, 50\), got {shown}; convert"
    ):
        ElmoModel(tiny_config())(input_ids)
