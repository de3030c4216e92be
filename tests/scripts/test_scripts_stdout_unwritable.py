"""A script whose stdout cannot be written (``> /dev/full``) ends on one line naming stdout, exit code 1, its output
whole; one whose reader left ends quietly with 141, as the elmo command does (``_args.run_script``; was: Python's two
lines at exit, 'Exception ignored in: <_io.TextIOWrapper name='<stdout>' ...>' and the error, exit 120)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hf_elmo_cli.commands._args import BROKEN_PIPE
from tests.conftest import REPO


def _convert(tmp_path: Path, stdout: int, *extra: str) -> subprocess.CompletedProcess[str]:
    """``convert_corpora.py sst`` of two sentences, buffered (as a shell runs it), into ``stdout``."""
    source = tmp_path / "stsa.binary.train"
    source.write_text("1 a fine film .\n0 a dull film .\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    command = [sys.executable, str(REPO / "scripts/convert_corpora.py"), "sst", str(source), str(tmp_path / "t.spacy")]
    return subprocess.run(
        [*command, *extra], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, timeout=300
    )


@pytest.mark.parametrize("extra", [(), ("--help",)])
def test_a_full_stdout_is_one_line_naming_it(extra, tmp_path):
    with open("/dev/full", "w") as full:
        result = _convert(tmp_path, full.fileno(), *extra)
    assert (result.returncode, result.stderr) == (1, f"convert_corpora.py: error: stdout: {os.strerror(28)}\n")
    assert (tmp_path / "t.spacy").is_file() != bool(extra)


def test_a_reader_that_left_is_no_error(tmp_path):
    read, write = os.pipe()
    os.close(read)
    try:
        result = _convert(tmp_path, write)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (BROKEN_PIPE, "")
    assert (tmp_path / "t.spacy").is_file()
