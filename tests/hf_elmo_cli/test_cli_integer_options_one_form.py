"""Every integer option of every elmo command and script refuses a value that is no integer in one form, ``must be
WANTED, got 'VALUE'``, and a whole number written otherwise (``1e4``, ``5.0``) that the option would take says its
digits (``_args.integer_at_least``, the one parser; was: only elmo pretrain's fields said the digits, its shape
options and some scripts' options were argparse's ``invalid int value: '1e3'``)."""

from __future__ import annotations

import argparse
import re

import pytest

from hf_elmo_cli import build_parser
from tests.conftest import REPO, load_script

REFUSALS = [
    (
        ["embed", "in.txt", "out.h5", "--tokens-per-batch", "1e4"],
        "elmo embed: error: argument --tokens-per-batch: must be a positive integer, got '1e4' (write it in digits: "
        "10000)",
    ),
    (
        ["embed", "in.txt", "out.h5", "--chunk-lines", "2.5"],
        "elmo embed: error: argument --chunk-lines: must be a positive integer, got '2.5'",
    ),
    (
        ["embed", "in.txt", "out.h5", "--max-token-chars", "1e2"],
        "elmo embed: error: argument --max-token-chars: must be a positive integer or 'none', got '1e2' (write it in "
        "digits: 100)",
    ),
    (
        ["demo", "--top", "5.0"],
        "elmo demo: error: argument --top: must be a positive integer, got '5.0' (write it in digits: 5)",
    ),
    (  # 0 is no positive integer, in digits or not: no hint
        ["demo", "--top", "0e0"],
        "elmo demo: error: argument --top: must be a positive integer, got '0e0'",
    ),
    (
        ["perplexity", "m", "f.txt", "--tokens-per-batch", "1e1"],
        "elmo perplexity: error: argument --tokens-per-batch: must be an integer >= 3, got '1e1' (write it in digits: "
        "10)",
    ),
    (  # beyond the bound in digits too: no hint
        ["embed", "in.txt", "out.h5", "--threads", "1e9"],
        "elmo embed: error: argument --threads: must be an integer in 1..1024, got '1e9'",
    ),
    (
        ["embed", "in.txt", "out.h5", "--threads", "inf"],
        "elmo embed: error: argument --threads: must be an integer in 1..1024, got 'inf'",
    ),
    (
        ["pretrain", "t.txt", "out", "--epochs", "1", "--lstm-dim", "1e3"],
        "elmo pretrain: error: argument --lstm-dim: must be an integer, got '1e3' (write it in digits: 1000)",
    ),
    (
        ["pretrain", "t.txt", "out", "--epochs", "1", "--n-layers", "two"],
        "elmo pretrain: error: argument --n-layers: must be an integer, got 'two'",
    ),
    (
        ["pretrain", "t.txt", "out", "--epochs", "1", "--max-tokens", "1e400"],
        "elmo pretrain: error: argument --max-tokens: must be an integer, got '1e400'",
    ),
]


@pytest.mark.parametrize(("argv", "said"), REFUSALS)
def test_an_integer_option_refuses_in_one_line_with_the_digits_where_they_would_do(argv, said, capsys):
    with pytest.raises(SystemExit) as exit:
        build_parser().parse_args(argv)
    assert exit.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == said


def _actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


def test_no_option_of_elmo_is_parsed_by_plain_int_or_float():
    """argparse's ``int`` and ``float`` say 'invalid int value', and ``float`` takes 'nan' and 'inf' silently
    (``test_cli_number_options_one_form.py``: the number options)."""
    plain = [action.option_strings or action.dest for action in _actions(build_parser()) if action.type in (int, float)]
    assert plain == []


#: The scripts that take options, built on _args (scripts/reference/ runs in AllenNLP's environment, apart).
SCRIPT_FILES = sorted(
    path for path in [*REPO.glob("scripts/*.py"), *REPO.glob("scripts/gpu/*.py"), *REPO.glob("hf_elmo_cli/**/*.py")]
)


@pytest.mark.parametrize("path", SCRIPT_FILES, ids=lambda path: str(path.relative_to(REPO)))
def test_no_script_option_is_parsed_by_plain_int_or_float(path):
    assert not re.search(r"\btype=(int|float)\b", path.read_text())


@pytest.mark.parametrize(
    ("script", "argv", "said"),
    [
        (
            "bench_spacy",
            ["--elmo", "m", "--seed", "1e3"],
            "argument --seed: must be an integer in 0..4294967295, got '1e3' (write it in digits: 1000)",
        ),
        (
            "bench_spacy",
            ["--elmo", "m", "--seed", "-1"],
            "argument --seed: must be an integer in 0..4294967295, got '-1'",
        ),
        (
            "bench_embed",
            ["in.txt", "--repeat", "2.0"],
            "argument --repeat: must be a positive integer, got '2.0' (write it in digits: 2)",
        ),
        (
            "gpu/gpu_run",
            ["pack", "--processes", "1e1"],
            "argument --processes: must be a positive integer, got '1e1' (write it in digits: 10)",
        ),
        ("gpu/gpu_run", ["pack", "--xz-preset", "10"], "argument --xz-preset: must be an integer in 0..9, got '10'"),
        ("gpu/gpu_run", ["poll", "--log-lines", "0"], "argument --log-lines: must be a positive integer, got '0'"),
        ("gpu/gpu_run", ["collect", "--first", "-1"], "argument --first: must be an integer >= 0, got '-1'"),
    ],
)
def test_a_scripts_integer_option_refuses_in_the_same_form(script, argv, said, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where they import their siblings from
    module = load_script(f"scripts/{script}.py")
    with pytest.raises(SystemExit) as exit:
        module.main(argv)
    assert exit.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f": error: {said}")


def test_readme_quotes_the_refusal_as_elmo_says_it(capsys):
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    quoted = re.search(r"\(`(elmo embed: error: argument --tokens-per-batch: [^`]+)`\)", readme)
    assert quoted is not None
    assert quoted[1] == REFUSALS[0][1]
