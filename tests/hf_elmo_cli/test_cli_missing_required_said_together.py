"""A command line missing a required argument and a required group is refused in one usage error naming both,
whichever argparse finds first. Before Python 3.12.8 the group is found first for ``elmo pretrain`` (a missing
positional argument: tests/hf_elmo_cli/test_pretrain_missing_arguments.py); from 3.12.8 the positional argument
is. The second branch of ``CommandParser._parse_intermixed`` is taken on every Python by a missing required
option, which argparse finds before the group on all of them: that is the branch this file tests."""

from __future__ import annotations

import pytest

from hf_elmo_cli.commands._args import CommandParser


def parser() -> CommandParser:
    command = CommandParser(prog="elmo run")
    command.add_argument("corpus")
    command.add_argument("--out", required=True)
    length = command.add_mutually_exclusive_group(required=True)
    length.add_argument("--epochs")
    length.add_argument("--max-tokens")
    return command


@pytest.mark.parametrize(
    "argv, said",
    [
        (["c.txt"], "the following arguments are required: --out and one of --epochs --max-tokens"),
        (["c.txt", "--epochs", "1"], "the following arguments are required: --out"),
        (["c.txt", "--out", "o"], "one of the arguments --epochs --max-tokens is required"),
    ],
    ids=["option-and-group", "option", "group"],
)
def test_a_missing_argument_found_before_a_missing_group_is_said_with_it(argv, said, capsys):
    """Was (the option-and-group case): "the following arguments are required: --out" alone (the groups were let
    off with the arguments when looking for the group), the group said only on the next try."""
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"elmo run: error: {said}"
