"""``encoding[i]`` with an integer, which gives a fast tokenizer's ``tokenizers.Encoding`` of sentence i, is a one-line
``KeyError`` naming what to ask an ELMo encoding instead (was transformers' "Invalid key. Only three types of key are
available", naming no way on); fields and slices answer as in transformers, and ``get`` still says no."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize("index", [0, -1, np.int64(1)], ids=str)
def test_an_integer_index_names_the_maps_and_fields_to_ask_instead(index):
    encoding = ElmoTokenizer()(["The cat sat", "cat"], padding=True)
    with pytest.raises(KeyError) as refused:
        encoding[index]
    assert refused.value.args[0] == (
        f"encoding[{index}]: an integer picks a fast tokenizer's tokenizers.Encoding, which ElmoTokenizer does not "
        f"make: ask the sentence's maps (encoding.word_ids({index}), encoding.tokens({index})) or index a field "
        f"(encoding['input_ids'][{index}])"
    )
    assert encoding.word_ids(index) == [[0, 1, 2], [0, None, None]][index]


def test_fields_slices_and_get_answer_as_in_transformers():
    encoding = ElmoTokenizer()(["The cat sat", "cat"], padding=True, return_tensors="pt")
    assert encoding["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert encoding[1:]["attention_mask"].tolist() == [[1, 0, 0]]
    assert encoding.get(0) is None
    assert 0 not in encoding
