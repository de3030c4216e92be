"""An ``OSError`` that reaches a command's or a script's last-resort error line is said as command-line tools say
it, ``FILE: REASON``, without Python's ``[Errno N]`` and the quotes around the file (``error_text``)."""

from __future__ import annotations

import errno
import os

import pytest

import hf_elmo_cli.commands.convert
from hf_elmo.fileio import oserror_in_one_line
from hf_elmo.messages import error_text
from hf_elmo_cli import main

MISSING = os.strerror(errno.ENOENT)


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (FileNotFoundError(errno.ENOENT, MISSING, "in.txt"), f"in.txt: {MISSING}"),
        (OSError(errno.EXDEV, os.strerror(errno.EXDEV), "a", None, "b"), f"a -> b: {os.strerror(errno.EXDEV)}"),
        (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), os.strerror(errno.ENOSPC)),
        (oserror_in_one_line(errno.ENOSPC, "no space left on the disk of /x"), "no space left on the disk of /x"),
        (OSError("another run writes out.txt"), "another run writes out.txt"),
        (ValueError("a bad value"), "a bad value"),
        ("a message", "a message"),
    ],
)
def test_an_error_is_one_line_without_the_errno(error, text):
    """Was: '[Errno 2] No such file or directory: 'in.txt'', '[Errno 28] No space left on device'."""
    assert error_text(error) == text


def test_the_command_line_names_the_file_and_the_reason(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "options.json"

    def run(args):
        raise FileNotFoundError(errno.ENOENT, MISSING, str(missing))

    monkeypatch.setattr(hf_elmo_cli.commands.convert, "run", run)
    assert main(["convert", str(missing), str(tmp_path / "weights.hdf5"), str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err == f"elmo convert: error: {missing}: {MISSING}\n"
