"""Ctrl-C while ``elmo COMMAND``'s command line is still being read
is one line naming the command, as Ctrl-C during its run is (was: ``elmo: interrupted``, the command unnamed)."""

from __future__ import annotations

import pytest

from hf_elmo_cli import INTERRUPTED, main
from hf_elmo_cli.commands._args import CommandParser


def interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("command", ["pretrain", "embed"])
def test_ctrl_c_while_reading_the_command_line_names_the_command(command, monkeypatch, capsys):
    monkeypatch.setattr(CommandParser, "_parse_intermixed", interrupt)
    assert main([command, "t.txt", "out"]) == INTERRUPTED
    assert capsys.readouterr().err.splitlines() == [f"elmo {command}: interrupted"]
