"""pad of encodings made with return_tensors (each a batch of one, input_ids (1, T, W)), as a data collator gets
them from ``[tokenizer(text, return_tensors="pt") for text in texts]``, is refused in one line saying what to pass
(was transformers' "Unable to create tensor, you should probably activate truncation and/or padding", with padding on,
or, without return_tensors, a batch of nested rows and masks returned silently)."""

from __future__ import annotations

import pytest
from transformers import DataCollatorWithPadding

from hf_elmo import ElmoTokenizer

MESSAGE = (
    "ElmoTokenizer.pad takes one sentence's encodings, input_ids (T, W), but encoding 1's are a batch's (B, T, W): "
    "encode each text without return_tensors (tokenizer(text)) and pass return_tensors to pad, or pad a batch's "
    "encoding alone (tokenizer.pad(tokenizer(texts)))"
)


@pytest.mark.parametrize("return_tensors", [None, "pt", "np"])
def test_encodings_that_are_batches_of_one_are_refused_naming_what_to_pass(return_tensors):
    tokenizer = ElmoTokenizer()
    features = [tokenizer("The cat sat"), tokenizer("", return_tensors="pt"), tokenizer("cat", return_tensors="np")]
    with pytest.raises(ValueError) as refused:
        tokenizer.pad(features, return_tensors=return_tensors)
    assert str(refused.value) == MESSAGE
    with pytest.raises(ValueError, match=r"^ElmoTokenizer\.pad takes one sentence's encodings"):
        DataCollatorWithPadding(tokenizer)([tokenizer(text, return_tensors="pt") for text in ("The cat", "sat")])


def test_one_sentences_encodings_and_a_batchs_encoding_still_pad():
    tokenizer = ElmoTokenizer()
    assert tokenizer.pad([tokenizer("The cat sat"), tokenizer("")], return_tensors="pt")["input_ids"].shape == (
        2,
        3,
        50,
    )
    assert tokenizer.pad(tokenizer(["The cat sat", "cat"]), return_tensors="pt")["attention_mask"].tolist() == [
        [1, 1, 1],
        [1, 0, 0],
    ]
