"""elmo's usage errors say a long command line back cut short: an invalid choice of 10 kB is quoted cut after 40
characters (``hf_elmo.messages.quoted``), and thousands of unrecognized arguments (a glob that the shell expanded) are listed
by their first ``SHOWN_EXTRAS`` (was: the whole value, every argument)."""

from __future__ import annotations

import pytest

from hf_elmo.messages import quoted
from hf_elmo_cli import main
from hf_elmo_cli.commands._args import SHOWN_EXTRAS


def usage_error(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


def test_a_long_invalid_choice_is_quoted_cut_short(capsys):
    value = "x" * 10_000
    line = usage_error(["embed", "in.txt", "out.hdf5", "--layers", value], capsys)
    assert line.startswith(f"elmo embed: error: argument --layers: invalid choice: {quoted(value)} (choose from ")
    assert len(line) < 200, line


def test_a_short_invalid_choice_is_quoted_whole(capsys):
    line = usage_error(["embed", "in.txt", "out.hdf5", "--layers", "tpo"], capsys)
    assert line.startswith("elmo embed: error: argument --layers: invalid choice: 'tpo' (choose from ")
    assert line.endswith("(did you mean top?)")


def test_many_unrecognized_arguments_are_listed_by_the_first_few(capsys):
    files = [f"file{i}.txt" for i in range(3_000)]
    line = usage_error(["embed", "in.txt", "out.hdf5", *files], capsys)
    assert line == (
        f"elmo embed: error: unrecognized arguments: {' '.join(files[:SHOWN_EXTRAS])} and {3_000 - SHOWN_EXTRAS:,} more"
    )


def test_a_few_unrecognized_arguments_are_listed_whole(capsys):
    line = usage_error(["embed", "in.txt", "out.hdf5", "a.txt", "b.txt"], capsys)
    assert line == "elmo embed: error: unrecognized arguments: a.txt b.txt"
