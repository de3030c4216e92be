"""``some_of``: how every refusal lists what it found (files of the user's, missing weights, unused datasets)."""

from __future__ import annotations

import pytest

from hf_elmo.messages import some_of


@pytest.mark.parametrize(
    "items, limit, listed",
    [
        ([], 3, ""),
        (["a", "b"], 3, "a, b"),
        (["a", "b", "c"], 3, "a, b, c"),
        (["c", "a", "b", "d"], 3, "c, a, b and 1 more"),  # in their order
        ([f"w{i}" for i in range(1_207)], 3, "w0, w1, w2 and 1,204 more"),
    ],
    ids=["none", "fewer", "as-many", "one-more", "thousands"],
)
def test_up_to_the_limit_are_named_in_their_order_then_how_many_more(items, limit, listed):
    assert some_of(items, limit) == listed
