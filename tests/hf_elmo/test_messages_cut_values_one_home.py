"""A long value that the tokenizer and the char ids refuse is cut as every refusal cuts one (``hf_elmo.messages``'
``quoted`` and ``described``: its repr cut after 40 characters, ``...`` after them), not by a copy of that rule (was:
``text[:40]!r``, the text cut before its repr and no ``...``, so a cut value read as whole)."""

from __future__ import annotations

import pytest

from hf_elmo.char_ids import batch_to_ids
from hf_elmo.messages import described, quoted
from hf_elmo.tokenization_elmo import ElmoTokenizer

LONG = "x" * 60


def test_a_long_token_with_a_lone_surrogate_is_quoted_cut_short():
    token = LONG + "\udc80"
    with pytest.raises(ValueError) as refused:
        batch_to_ids([[token]])
    assert f" {quoted(token)} contains '\\udc80' (a lone surrogate)" in str(refused.value)
    assert quoted(token).endswith("...")


def test_a_long_text_with_is_split_into_words_is_described_cut_short():
    with pytest.raises(TypeError) as refused:
        ElmoTokenizer()(LONG, is_split_into_words=True)
    assert f"got {described(LONG)}; pass raw text" in str(refused.value)
    assert described(LONG) == f"the str {quoted(LONG)}"
