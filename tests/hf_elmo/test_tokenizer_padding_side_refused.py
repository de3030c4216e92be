"""A padding_side that is not 'right' is refused in one line naming it, an array too (was: numpy's 'truth value of
an array is ambiguous', from ``padding_side or self.padding_side``)."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize(
    "call",
    [
        lambda t, side: t("a", padding_side=side),
        lambda t, side: t.pad([t("a")], padding_side=side),
        lambda t, side: ElmoTokenizer(padding_side=side),
    ],
    ids=["call", "pad", "init"],
)
@pytest.mark.parametrize(
    "side, shown",
    [(np.zeros((2, 2)), "a value of type ndarray"), ("", "the str ''"), ("left", "the str 'left'")],
    ids=["array", "empty", "left"],
)
def test_a_padding_side_other_than_right_is_refused_in_one_line_naming_it(call, side, shown):
    with pytest.raises(ValueError) as refused:
        call(ElmoTokenizer(), side)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"ElmoTokenizer pads on the right only: padding_side must be 'right', got {shown};")


def test_padding_side_none_or_right_is_the_tokenizer_own():
    tokenizer = ElmoTokenizer()
    for side in (None, "right"):
        assert tokenizer("a b", padding_side=side)["input_ids"]
        assert tokenizer.pad([tokenizer("a")], padding_side=side)["input_ids"]
