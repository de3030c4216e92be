"""``tokenizer.pad_token_id = False`` (or ``0.0``) is refused as any other special token is: a bool is no id, though
``False == 0`` (was: passed silently, as ``pad_token_id = 0`` does)."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize("value", [False, np.bool_(False), 0.0])
def test_a_pad_token_id_that_is_no_integer_is_refused_in_one_line(value):
    tokenizer = ElmoTokenizer()
    with pytest.raises(ValueError) as refused:
        tokenizer.pad_token_id = value
    assert str(refused.value).startswith(f"pad_token_id = the {type(value).__name__} ")
    assert "padding is built in (pad_token_id 0)" in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize("value", [0, np.int64(0)])
def test_a_pad_token_id_of_the_integer_0_still_passes(value):
    tokenizer = ElmoTokenizer()
    tokenizer.pad_token_id = value
    assert tokenizer.pad_token_id == 0 and tokenizer.all_special_ids == []
