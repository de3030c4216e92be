"""An option that takes a list (``nargs``), or ``elmo demo --word``, given twice with two values is a usage error
naming both, in every elmo command and script (``_args._StoreOnce``, the default action of ``SuggestingParser``; was:
the first dropped without a word: ``elmo demo --word bank --word river`` (``scripts/demo.sh`` too) compared 'river'
alone, ``bench_inference.py --batch-sizes 1 16 --batch-sizes 64`` timed 64 alone). An option of one value given twice
keeps argparse's rule, the last counts (an alias's option overridden), as the README says; the same value twice is
taken."""

from __future__ import annotations

import math

import pytest

from hf_elmo_cli import build_parser
from hf_elmo_cli.commands._args import SuggestingParser
from tests.conftest import REPO, load_script
from tests.hf_elmo_cli.test_cli_model_given_as_argument import refusal


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["demo", "--word", "bank", "--top", "3", "--word", "river"], "--word is given twice, as 'bank' and 'river'"),
        (
            ["demo", "--sentences", "a b", "c d", "--sentences", "e f", "g h"],
            "--sentences is given twice, as 'a b' 'c d' and 'e f' 'g h'",
        ),
    ],
)
def test_demo_refuses_a_second_word_or_pair_of_sentences_naming_both(argv, said, capsys):
    assert refusal(argv, capsys) == f"elmo demo: error: {said}: give it once"


def test_a_scripts_list_given_twice_is_refused_naming_both(capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from
    module = load_script("scripts/bench_inference.py")
    with pytest.raises(SystemExit) as exit:
        module.main(["--batch-sizes", "1", "16", "--device", "nosuch", "--batch-sizes", "64"])  # refused, not run
    assert exit.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(": error: --batch-sizes is given twice, as '1' '16' and '64': give it once")
    )


@pytest.mark.parametrize(
    ("argv", "dest", "last"),
    [
        (["embed", "in.txt", "--layers", "top", "out.hdf5", "--layers=average"], "layers", "average"),
        (["embed", "in.txt", "out.hdf5", "--model", "a", "--model", "b"], "model", "b"),
        (["pretrain", "t.txt", "out", "--epochs", "1", "--lr", "nan", "--lr", "0.1"], "lr", 0.1),
    ],
)
def test_an_option_of_one_value_given_twice_takes_the_last(argv, dest, last):
    assert getattr(build_parser().parse_args(argv), dest) == last


def test_the_same_word_twice_and_a_value_unequal_to_itself_are_taken():
    args = build_parser().parse_args(["demo", "--word", "bank", "--top", "3", "--word", "bank"])
    assert (args.word, args.top) == ("bank", 3)
    parser = SuggestingParser(prog="script.py")
    parser.add_argument("--ratio", action="once", type=float)
    assert math.isnan(parser.parse_args(["--ratio", "nan"]).ratio)


def test_each_parse_is_its_own():
    parser = build_parser()
    assert parser.parse_args(["demo", "--word", "bank"]).word == "bank"
    assert parser.parse_args(["demo", "--word", "river"]).word == "river"


def test_appending_options_collect_as_before():
    parser = SuggestingParser(prog="script.py")
    parser.add_argument("--model", action="append")
    parser.add_argument("--sizes", nargs="+")
    assert parser.parse_args(["--model", "a", "--model", "b"]).model == ["a", "b"]
    assert parser.parse_args(["--sizes", "1", "2"]).sizes == ["1", "2"]
