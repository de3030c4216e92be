"""``batch_to_ids`` refuses a token that is no str as ``token_to_char_ids`` does, whether or not it can be hashed."""

from __future__ import annotations

import pytest

from hf_elmo import batch_to_ids


@pytest.mark.parametrize(
    "token, shown",
    [(7, r"the int 7"), (["b"], r"the list \['b'\]"), ({"b": 1}, r"the dict \{'b': 1\}")],
    ids=["int", "list", "dict"],
)
def test_a_token_that_is_no_str_is_refused_naming_its_place_and_value(token, shown):
    """Was, for a list or a dict: "sentence 0, token 1: unhashable type: 'list'" (from the cache of char ids)."""
    with pytest.raises(TypeError, match=rf"^sentence 1, token 1: tokens must be str, got {shown}$"):
        batch_to_ids([["a"], ["a", token]])
