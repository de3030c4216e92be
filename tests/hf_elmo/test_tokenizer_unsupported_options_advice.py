"""An encoding option ElmoTokenizer does not take (a sliding window's stride and overflowing tokens, which ELMo, reading
each sentence whole, has no use for, or a misspelt option) is refused in one line that says what to do: leave it unset
(was "ElmoTokenizer does not support ['stride']", naming no way on). Given as None or False it changes nothing."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"stride": 2}, "ElmoTokenizer does not support ['stride']: leave it unset"),
        (
            {"return_overflowing_tokens": True, "stride": 1},
            "ElmoTokenizer does not support ['return_overflowing_tokens', 'stride']: leave them unset",
        ),
        ({"paddin": True}, "ElmoTokenizer does not support ['paddin']: leave it unset"),
    ],
)
def test_an_unsupported_option_is_refused_saying_to_leave_it_unset(options, message):
    with pytest.raises(TypeError) as refused:
        ElmoTokenizer()("The cat sat", truncation=True, max_length=2, **options)
    assert str(refused.value) == message


def test_an_unsupported_option_given_as_none_false_or_0_changes_nothing():
    tokenizer = ElmoTokenizer()
    assert tokenizer("a b", stride=0, return_overflowing_tokens=False, paddin=None) == tokenizer("a b")
