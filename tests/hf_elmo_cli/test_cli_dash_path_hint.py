"""A path that starts with a dash (``-out.hdf5``) is read by argparse as an option: the refusal names it and says how
to give it, ``./-out.hdf5`` or after ``--`` (was: only 'the following arguments are required: OUTPUT', the path not
named, or 'unrecognized arguments: -outdir')."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main

HINT = "give a path that starts with '-' as ./{0}, or after --"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["embed", "text.txt", "-out.hdf5"], "the following arguments are required: OUTPUT; '-out.hdf5' was read"),
        (["export", "model", "-outdir"], "unrecognized arguments: -outdir; '-outdir' was read"),
    ],
)
def test_a_path_read_as_an_option_is_named_with_how_to_give_it(argv, said, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert said in last and last.endswith(HINT.format(argv[-1]))


def test_a_refusal_without_such_a_word_has_no_hint(capsys):
    with pytest.raises(SystemExit):
        main(["embed", "text.txt", "--lr", "-1"])
    assert "was read as an option" not in capsys.readouterr().err
