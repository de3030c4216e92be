"""ElmoTokenizer given something that is neither a text, a batch of texts nor (pre-split) words says
what it takes, in one line."""

from __future__ import annotations

import re

import pytest

from hf_elmo import ElmoTokenizer

TAKES = (
    r"^ElmoTokenizer takes a text \(str\) or a list of texts, or with is_split_into_words=True a list of words or a "
    r"list of such lists, got "
)


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("text, kind", [(None, "None"), (3, "the int 3"), (b"a b", "the bytes b'a b'")])
def test_a_text_of_another_type_is_one_line_naming_it(text, kind, split):
    """Was "'NoneType' object is not iterable" (and "object of type 'NoneType' has no len()")."""
    with pytest.raises(TypeError, match=TAKES + re.escape(kind) + "$"):
        ElmoTokenizer()(text, is_split_into_words=split)


def test_a_dataset_row_is_refused_saying_to_pass_its_text_not_encoded_as_its_keys():
    """Was no error: a dict is iterable, and its keys ("text", "label") were encoded as the texts."""
    refusal = TAKES + re.escape(
        "the dict {'text': 'The cat sat', 'label': 1}; pass its text field, e.g. tokenizer(row['text'])"
    )
    with pytest.raises(TypeError, match=refusal + "$"):
        ElmoTokenizer()({"text": "The cat sat", "label": 1})


def test_a_tuple_of_texts_is_still_a_batch():
    tokenizer = ElmoTokenizer()
    assert tokenizer(("a b", "c"))["input_ids"] == tokenizer(["a b", "c"])["input_ids"]
