"""``sync_shipped_code.py --help`` whose stdout cannot be written (``> /dev/full``) ends on one line naming stdout, exit
code 1, buffered or not (``_args.run_script``, ``SuggestingParser``; was: Python's two lines at exit and exit 120, or,
unbuffered, exit 0 and the help lost)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.parametrize("unbuffered", [False, True])
def test_help_into_a_full_stdout_is_one_line_naming_it(unbuffered):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, str(REPO / "scripts/sync_shipped_code.py"), "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
            timeout=300,
        )
    assert (result.returncode, result.stderr) == (1, f"sync_shipped_code.py: error: stdout: {os.strerror(28)}\n")
