"""An integer option of ``elmo pretrain`` (a ``PretrainSettings`` field: ``--max-tokens``, ``--seed``, ...) given no
integer says what it takes as the other integer options do, and a whole number in exponent form its digits
(``_args.integer``; was: argparse's "invalid int value: '1e6'")."""

from __future__ import annotations

import pytest

from hf_elmo_cli import build_parser


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--max-tokens", "1e6", "must be an integer, got '1e6' (write it in digits: 1000000)"),
        ("--max-tokens", "1.5e8", "must be an integer, got '1.5e8' (write it in digits: 150000000)"),
        ("--max-steps", "2.5", "must be an integer, got '2.5'"),
        ("--seed", "nan", "must be an integer, got 'nan'"),
        ("--vocab-size", "lots", "must be an integer, got 'lots'"),
    ],
)
def test_no_integer_is_refused_saying_what_it_takes(option, value, said, capsys):
    with pytest.raises(SystemExit) as exit:
        build_parser().parse_args(["pretrain", "t.txt", "out", "--epochs", "1", f"{option}={value}"])
    assert exit.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"elmo pretrain: error: argument {option}: {said}"


def test_an_integer_is_taken_as_before():
    args = build_parser().parse_args(["pretrain", "t.txt", "out", "--max-tokens", "1_000", "--seed", "-3"])
    assert (args.max_tokens, args.seed) == (1000, -3)  # the bounds: checked once parsed (check_numbers)
