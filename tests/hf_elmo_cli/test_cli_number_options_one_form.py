"""Every number option of every elmo command and script refuses a value that is no number in one form, ``must be
WANTED, got 'VALUE'``, and where the parse checks its bounds ``nan``, ``inf`` (``1e400``) too
(``_args.finite_number``, the one parser; ``_args.number`` where they are checked later, as ``elmo pretrain``'s
``check_numbers`` does). Was: argparse's ``float``, 'invalid float value: '0x10'' for a word, and ``gpu_run.py poll
--every nan``, ``pack --part-mib inf`` taken, failing later with a traceback."""

from __future__ import annotations

import math

import pytest

from hf_elmo_cli import build_parser
from hf_elmo_cli.commands._args import finite_number, fraction
from tests.conftest import REPO, load_script


@pytest.mark.parametrize(
    ("option", "value"), [("--lr", "lots"), ("--dropout", "0x10"), ("--epochs", "one"), ("--max-minutes", "1h")]
)
def test_a_pretrain_number_option_refuses_a_word_as_the_others_do(option, value, capsys):
    with pytest.raises(SystemExit) as exit:
        build_parser().parse_args(["pretrain", "t.txt", "out", "--max-tokens", "9", option, value])
    assert exit.value.code == 2
    said = capsys.readouterr().err.splitlines()[-1]
    assert said == f"elmo pretrain: error: argument {option}: must be a number, got '{value}'"


@pytest.mark.parametrize(
    ("script", "argv", "said"),
    [
        ("gpu/gpu_run", ["poll", "--every", "nan"], "argument --every: must be a finite number > 0, got 'nan'"),
        ("gpu/gpu_run", ["poll", "--every", "0"], "argument --every: must be a finite number > 0, got '0'"),
        ("gpu/gpu_run", ["poll", "--follow", "-1"], "argument --follow: must be a finite number >= 0, got '-1'"),
        ("gpu/gpu_run", ["pack", "--part-mib", "inf"], "argument --part-mib: must be a finite number > 0, got 'inf'"),
        ("gpu/gpu_run", ["resplit", "--part-mib", "-0"], "argument --part-mib: must be a finite number > 0, got '-0'"),
        (
            "gpu/gpu_run",
            ["collect", "--piece-mib", "1e400"],
            "argument --piece-mib: must be a finite number > 0, got '1e400'",
        ),
        (
            "gpu/gpu_run",
            ["pack", "--train-fraction", "nan"],
            "argument --train-fraction: must be a finite number > 0 and <= 1, got 'nan'",
        ),
        (
            "bench_embed",
            ["in.txt", "--stub-model", "--stub-device-us", "lots"],
            "argument --stub-device-us: must be a finite number >= 0, got 'lots'",
        ),
    ],
)
def test_a_scripts_number_option_refuses_in_one_line(script, argv, said, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where they import their siblings from
    module = load_script(f"scripts/{script}.py")
    with pytest.raises(SystemExit) as exit:
        module.main(argv)
    assert exit.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f": error: {said}")


def test_minus_zero_is_zero_and_refused_where_zero_is():
    assert math.copysign(1, finite_number(0)("-0")) == 1
    with pytest.raises(Exception, match=r"must be a finite number > 0 and <= 1, got '-0'"):
        fraction("-0")
