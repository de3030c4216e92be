"""``padding=1`` (or ``0``, ``1.0``) is refused in one line, as transformers' tokenizers refuse it ('1 is not a valid
PaddingStrategy'): a number is no padding strategy, though ``1 == True`` (was: read silently as ``True`` or
``False``)."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize("padding", [1, 0, 1.0, np.True_])
def test_a_padding_that_is_a_number_is_refused_in_one_line(padding):
    with pytest.raises(ValueError) as refused:
        ElmoTokenizer()(["a b", "c"], padding=padding)
    assert str(refused.value).startswith("padding must be True, False, 'longest', 'max_length' or 'do_not_pad', got ")
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("padding", "lengths"), [(True, [2, 2]), (False, [2, 1]), ("longest", [2, 2])])
def test_a_padding_of_a_bool_or_a_strategy_still_pads_as_it_says(padding, lengths):
    assert [len(row) for row in ElmoTokenizer()(["a b", "c"], padding=padding)["input_ids"]] == lengths
