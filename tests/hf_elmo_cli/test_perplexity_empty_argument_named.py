"""`elmo perplexity` names the empty argument as what it is: its one argument is FILE (was: 'argument MODEL: must
not be empty', argparse's name for the first of its two optional positional arguments)."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["perplexity", ""], "FILE"),
        (["perplexity", "", "--json"], "FILE"),
        (["perplexity", "", "--model", "m"], "FILE"),
        (["perplexity", "", "test.txt"], "MODEL"),
    ],
)
def test_an_empty_argument_is_named_as_what_it_is(argv, argument, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: elmo perplexity")
    assert (
        err.splitlines()[-1] == f"elmo perplexity: error: argument {argument}: must not be empty: give a path or a name"
    )
