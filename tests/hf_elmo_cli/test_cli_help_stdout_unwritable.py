"""``elmo --version``, ``elmo --help`` and ``elmo COMMAND --help`` whose stdout cannot be written (``> /dev/full``)
say so in one line naming stdout, exit 2, buffered or not (was: exit 0 and the text lost, argparse's
``_print_message`` swallowing the error, or Python's two lines at exit and exit 120); a reader that left is no error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hf_elmo_cli import BROKEN_PIPE

REPO = Path(__file__).resolve().parents[2]
ASKED = {"--version": "elmo", "--help": "elmo", "embed --help": "elmo embed"}


def _elmo(words: str, stdout: int, unbuffered: bool) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, "-m", "hf_elmo_cli", *words.split()]
    return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, timeout=120)


@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize("words", list(ASKED))
def test_a_full_stdout_is_one_line_naming_it(words, unbuffered):
    with open("/dev/full", "w") as full:
        result = _elmo(words, full.fileno(), unbuffered)
    assert (result.returncode, result.stderr) == (2, f"{ASKED[words]}: error: stdout: {os.strerror(28)}\n")


@pytest.mark.parametrize("words", list(ASKED))
def test_a_reader_that_left_is_no_error(words):
    read, write = os.pipe()
    os.close(read)
    try:
        result = _elmo(words, write, unbuffered=False)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (BROKEN_PIPE, "")
