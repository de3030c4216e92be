"""``elmo help [COMMAND]`` prints ``elmo [COMMAND] --help`` on stdout, exit 0, as git's and pip's ``help`` do (was:
"invalid choice: 'help'"); a mistyped command after it is refused naming the closest."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main
from tests.conftest import REPO


@pytest.mark.parametrize(("argv", "usage"), [(["help", "embed"], "usage: elmo embed "), (["help"], "usage: elmo [-h]")])
def test_help_prints_the_help_of_elmo_or_of_the_command(argv, usage, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith(usage) and err == ""


def test_help_of_a_mistyped_command_names_the_closest(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["help", "embd"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith("(did you mean embed?)")


def test_readme_names_elmo_help():
    assert "`elmo help COMMAND` (as `elmo COMMAND --help`)" in (REPO / "README.md").read_text(encoding="utf-8")
