"""``bench_embed.py --help`` whose stdout cannot be written (``> /dev/full``) ends on one line naming stdout, exit code
1, buffered or not (``SuggestingParser`` in the benchmark's own process; was, unbuffered: exit 0 and the help lost).
Its ``--worker`` runs keep plain ``argparse``: they run on the checkout they time, maybe one without these helpers."""

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
            [sys.executable, str(REPO / "scripts/bench_embed.py"), "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
            timeout=300,
        )
    assert (result.returncode, result.stderr) == (1, f"bench_embed.py: error: stdout: {os.strerror(28)}\n")
