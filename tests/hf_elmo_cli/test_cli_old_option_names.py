"""An option's old name (elmo embed's --batch-tokens, elmo pretrain's --save-dtype) still takes its value, hidden
from --help, with a one-line deprecation warning naming the new name (was: listed in --help beside the new name,
as a second name for the same option, and silent)."""

from __future__ import annotations

import pytest

from hf_elmo_cli import build_parser
from hf_elmo_cli.commands._args import CommandParser, add_old_name

OLD_NAMES = {
    "embed": (["embed", "in.txt", "out.hdf5"], "--batch-tokens", "--tokens-per-batch", "7", "tokens_per_batch", 7),
    "pretrain": (
        ["pretrain", "in.txt", "out", "--epochs", "1"],
        "--save-dtype",
        "--storage-dtype",
        "float16",
        "storage_dtype",
        "float16",
    ),
}


@pytest.mark.parametrize("command", list(OLD_NAMES))
def test_the_old_name_takes_the_value_and_warns_once_naming_the_new(command, capsys):
    argv, old, new, value, dest, parsed = OLD_NAMES[command]
    args = build_parser().parse_args([*argv, old, value])
    assert getattr(args, dest) == parsed
    assert capsys.readouterr().err.splitlines() == [
        f"elmo {command}: warning: {old} is deprecated: use {new}, its name now"
    ]


@pytest.mark.parametrize("command", list(OLD_NAMES))
def test_the_new_name_and_the_default_say_nothing(command, capsys):
    argv, _, new, value, dest, parsed = OLD_NAMES[command]
    assert getattr(build_parser().parse_args([*argv, new, value]), dest) == parsed
    assert getattr(build_parser().parse_args(argv), dest) != parsed
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", list(OLD_NAMES))
def test_the_old_name_is_not_in_the_help(command, capsys):
    _, old, new, *_ = OLD_NAMES[command]
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    said = capsys.readouterr().out
    assert new in said and old not in said


def test_a_process_that_leaves_the_errors_to_another_does_not_warn(capsys):
    """Under torchrun, rank 0 alone warns, as it alone says the command's errors."""
    parser = CommandParser(prog="elmo pretrain", speaks=lambda: False)
    add_old_name(parser, "--save-dtype", parser.add_argument("--storage-dtype", default="float32"))
    assert parser.parse_args(["--save-dtype", "float16"]).storage_dtype == "float16"
    assert capsys.readouterr().err == ""
