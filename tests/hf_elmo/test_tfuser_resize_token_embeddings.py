"""``model.resize_token_embeddings(len(tokenizer))``, the first line of many fine-tuning scripts, returns
the input embeddings unchanged, as transformers' own resize does for the size they have (the 262 char
ids of a char-CNN model; ``None`` too), leaving ``config.vocab_size`` (an LM's softmax words) as it was;
it was refused. Another size, or a ``pad_to_multiple_of`` that would grow them, is still refused."""

from __future__ import annotations

import pytest
import torch

from hf_elmo import ElmoForBidirectionalLM, ElmoForTokenClassification, ElmoModel, ElmoTokenizer
from tests.hf_elmo.test_heads import tiny_config

CHAR_MODELS = [
    lambda: ElmoModel(tiny_config(vocab_size=20)),  # vocab_size kept from an LM's folder, as the shipped model's
    lambda: ElmoForBidirectionalLM(tiny_config(vocab_size=20)),
    lambda: ElmoForTokenClassification(tiny_config(num_labels=2, vocab_size=20)),
]


@pytest.mark.parametrize("build", CHAR_MODELS)
@pytest.mark.parametrize(
    "arguments", [lambda: (len(ElmoTokenizer()),), lambda: (), lambda: (262, 2), lambda: (None, 131)]
)
def test_a_resize_to_the_char_ids_it_reads_returns_them_unchanged(build, arguments):
    model = build()
    embeddings = model.get_input_embeddings()
    before = {name: value.clone() for name, value in model.state_dict().items()}
    assert model.resize_token_embeddings(*arguments()) is embeddings
    assert model.get_input_embeddings() is embeddings and embeddings.num_embeddings == 262
    assert model.config.vocab_size == 20
    assert all(torch.equal(before[name], value) for name, value in model.state_dict().items())


def test_a_word_baseline_resized_to_its_own_words_is_unchanged():
    model = ElmoModel(tiny_config(token_embedding="word", vocab_size=20))
    assert model.resize_token_embeddings(20) is model.get_input_embeddings() is model.word_embedding


@pytest.mark.parametrize(
    ("arguments", "refusal"),
    [
        ((263,), "^ELMo has no word vocabulary to resize: its input ids are the 262 fixed char ids"),
        ((None, 8), "^ELMo has no word vocabulary to resize"),  # 262 padded to 264
        ((262, 0), "^ELMo has no word vocabulary to resize"),
    ],
)
def test_another_size_is_still_refused_in_one_line(arguments, refusal):
    with pytest.raises(ValueError, match=refusal):
        ElmoModel(tiny_config()).resize_token_embeddings(*arguments)


def test_an_lm_resized_to_other_words_is_still_refused_naming_its_vocabulary():
    with pytest.raises(ValueError, match=r"^resize_token_embeddings is not supported: this model's word vocabulary"):
        ElmoForBidirectionalLM(tiny_config(vocab_size=20)).resize_token_embeddings(30)
