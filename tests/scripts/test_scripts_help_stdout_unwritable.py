"""``check_parity.py --help``, ``sync_shipped_code.py --help`` (scripts with a ``main`` of their own) and
``bench_embed.py --help`` whose stdout cannot be written (``> /dev/full``) end on one line naming stdout, exit code 1,
buffered or not (``_args.run_script``, ``SuggestingParser``; was: Python's two lines at exit and exit 120, or,
unbuffered, exit 0 and the help lost). bench_embed's ``--worker`` runs keep plain ``argparse``: they run on the
checkout they time, maybe one without these helpers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.parametrize("script", ["check_parity.py", "sync_shipped_code.py", "bench_embed.py"])
@pytest.mark.parametrize("unbuffered", [False, True])
def test_help_into_a_full_stdout_is_one_line_naming_it(script, unbuffered):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, str(REPO / "scripts" / script), "--help"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
            timeout=300,
        )
    assert (result.returncode, result.stderr) == (1, f"{script}: error: stdout: {os.strerror(28)}\n")
