"""A command that takes its model with ``--model`` only (``elmo embed``, ``demo``), given one as its first argument,
as ``elmo perplexity MODEL FILE`` and ``export MODEL OUTPUT_DIR`` take it, says where the model goes in its usage
error (was: only 'unrecognized arguments: out.hdf5'); a word that is no model's name is refused as before."""

from __future__ import annotations

import pytest

from hf_elmo_cli import build_parser

SHIPPED = "hf-elmo:elmo-2x1024-en"


def refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The last line of the usage error (exit code 2) that the elmo command's parser gives ``argv``."""
    with pytest.raises(SystemExit) as exit:
        build_parser().parse_args(argv)
    assert exit.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize(
    ("argv", "extra"),
    [(["embed", SHIPPED, "in.txt", "out.hdf5"], "out.hdf5"), (["demo", SHIPPED, "--top", "3"], SHIPPED)],
)
def test_a_shipped_model_given_first_says_to_give_it_with_model(argv, extra, capsys):
    command = f"elmo {argv[0]}"
    assert refusal(argv, capsys) == (
        f"{command}: error: unrecognized arguments: {extra} ({command} takes no model argument: give it with --model, "
        f"{command} ... --model {SHIPPED})"
    )


def test_a_model_folder_given_first_alike(tmp_path, capsys):
    line = refusal(["embed", str(tmp_path), "in.txt", "out.hdf5"], capsys)
    assert line.endswith(
        f"(elmo embed takes no model argument: give it with --model, elmo embed ... --model {tmp_path})"
    )


def test_a_word_that_is_no_model_is_refused_as_before(capsys):
    line = refusal(["embed", "in.txt", "out.hdf5", "more.txt"], capsys)
    assert line == "elmo embed: error: unrecognized arguments: more.txt"


@pytest.mark.parametrize(
    ("argv", "extra"),
    [(["perplexity", SHIPPED, "a.txt", "b.txt"], "b.txt"), (["export", SHIPPED, "out", "extra"], "extra")],
)
def test_a_command_that_takes_a_model_argument_gets_no_such_hint(argv, extra, capsys):
    assert refusal(argv, capsys) == f"elmo {argv[0]}: error: unrecognized arguments: {extra}"
