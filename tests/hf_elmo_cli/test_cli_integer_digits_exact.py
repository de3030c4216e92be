"""The "write it in digits" hint of an integer option given a whole number in another form gives its exact digits,
past float's 2**53 too (``1e23`` is 100000000000000000000000, not float's 99999999999999991611392)."""

from __future__ import annotations

import argparse

import pytest

from hf_elmo_cli.commands._args import integer, positive_int


@pytest.mark.parametrize(
    ("text", "digits"),
    [("1e23", "100000000000000000000000"), ("12345678901234567.0", "12345678901234567"), ("1.5e3", "1500")],
)
def test_the_digits_hint_is_exact(text, digits):
    for parse in (integer, positive_int):
        with pytest.raises(argparse.ArgumentTypeError) as caught:
            parse(text)
        assert str(caught.value).endswith(f"got '{text}' (write it in digits: {digits})")


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e400", "1e1000000", "1e-1000000", "2.5", "lots", "0x10"])
def test_no_digits_hint_for_what_is_no_whole_number_in_range(text):
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        integer(text)
    assert "write it in digits" not in str(caught.value)
