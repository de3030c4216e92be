"""A value that an option's type refuses is quoted cut short in its usage error (``hf_elmo.messages.quoted``, as
``hf_elmo.messages.described`` cuts a value): an argument of 10 kB is not said back in a line of 10 kB (was:
``got '...'`` with the whole value)."""

from __future__ import annotations

import argparse

import pytest

from hf_elmo.messages import described, quoted
from hf_elmo_cli import main
from hf_elmo_cli.commands._args import fraction, integer_at_least, non_negative, one_token, token_limit
from tests.conftest import REPO, load_script

LONG = "9x" * 5_000
#: The most characters of a value's repr that a refusal quotes (``hf_elmo.messages.quoted``).
QUOTED_CHARS = 40


@pytest.mark.parametrize(
    ("parse", "value"),
    [
        (integer_at_least(1), LONG),
        (integer_at_least(1, 8), LONG),
        (fraction, LONG),
        (non_negative, LONG),
        (token_limit, LONG),
        (one_token, LONG + " " + LONG),
    ],
)
def test_a_long_refused_value_is_cut_short(parse, value):
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(value)
    assert str(refused.value).endswith(f"got {repr(value)[:QUOTED_CHARS]}..."), str(refused.value)[:200]


def test_a_long_listener_setting_of_bench_spacy_is_cut_short(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        load_script("scripts/bench_spacy.py").listener_setting("width=" + LONG)
    assert str(refused.value).endswith(f", got {repr('width=' + LONG)[:QUOTED_CHARS]}..."), str(refused.value)[:200]


def test_a_short_refused_value_is_quoted_whole():
    assert quoted("abc") == "'abc'"
    assert quoted("9" * (QUOTED_CHARS - 2)) == repr("9" * (QUOTED_CHARS - 2))


def test_a_value_is_cut_as_the_library_cuts_it():
    assert described(LONG) == f"the str {quoted(LONG)}"


def test_the_command_line_says_a_long_value_in_one_short_line(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--top", LONG])
    assert stopped.value.code == 2
    line = capsys.readouterr().err.splitlines()[-1]
    assert line == f"elmo demo: error: argument --top: must be a positive integer, got {repr(LONG)[:QUOTED_CHARS]}..."
