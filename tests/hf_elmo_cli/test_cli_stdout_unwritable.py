"""A command whose stdout cannot be written (``> /dev/full``, a full disk; a reader that left) says so in one line
naming stdout, or, for a reader that left, nothing, with its exit status (was: Python's two lines at exit, 'Exception
ignored in: <_io.TextIOWrapper name='<stdout>' ...>' and the error, and exit status 120). What it wrote is whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hf_elmo import ElmoTokenizer
from hf_elmo_cli import BROKEN_PIPE
from tests.hf_elmo.random_inputs import clipped_random_model

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    clipped_random_model().save_pretrained(folder)
    ElmoTokenizer().save_pretrained(folder)
    return folder


def _export(model: Path, out: Path, stdout: int) -> subprocess.CompletedProcess[str]:
    """``elmo export MODEL OUT`` with buffered output (as a shell runs it) into ``stdout``."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    command = [sys.executable, "-m", "hf_elmo_cli", "export", str(model), str(out)]
    return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, timeout=300)


def test_a_full_stdout_is_one_line_naming_it(model, tmp_path):
    with open("/dev/full", "w") as full:
        result = _export(model, tmp_path / "out", full.fileno())
    assert result.returncode == 2
    assert result.stderr == f"elmo export: error: stdout: {os.strerror(28)}\n"
    assert (tmp_path / "out" / "elmo_export.json").is_file()


def test_a_reader_that_left_is_no_error(model, tmp_path):
    read, write = os.pipe()
    os.close(read)
    try:
        result = _export(model, tmp_path / "out", write)
    finally:
        os.close(write)
    assert result.returncode == BROKEN_PIPE and result.stderr == ""
