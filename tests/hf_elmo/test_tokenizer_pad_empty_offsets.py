"""pad of sentences that all have no words keeps offset_mapping's pair axis, (B, 0, 2), as the tokenizer's call
gives it for the same texts (was (B, 0): a tensor of another rank than every other batch's offsets)."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize("return_tensors", ["pt", "np"])
def test_padded_sentences_without_words_keep_the_offsets_pair_axis(return_tensors):
    tokenizer = ElmoTokenizer()
    padded = tokenizer.pad(
        [tokenizer("", return_offsets_mapping=True) for _ in range(2)], return_tensors=return_tensors
    )
    called = tokenizer(["", ""], return_offsets_mapping=True, return_tensors=return_tensors)
    assert {key: value.shape for key, value in padded.items()} == {key: value.shape for key, value in called.items()}
    assert padded["offset_mapping"].shape == (2, 0, 2)
