"""Ctrl-C ends a script in one line, ``PROG: interrupted``, exit status 130, as the elmo command (``_args.run_script``;
was: Python's traceback); prepare_pretrain_en.py's tokenising processes leave Ctrl-C to the script, which ends them
(was: a traceback of each besides the script's), and its output folder is left as it was, here none."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hf_elmo_cli.commands._args import INTERRUPTED, run_script
from tests.conftest import REPO
from tests.scripts.test_prepare_pretrain_en import write_shard


def test_a_script_interrupted_says_so_in_one_line(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["some_script.py"])

    def main() -> None:
        raise KeyboardInterrupt

    try:
        run_script(main)
    except KeyboardInterrupt:  # not let through to end the tests' run
        pytest.fail("Ctrl-C came out of run_script, to end the script with Python's traceback")
    except SystemExit as stopped:
        assert stopped.code == INTERRUPTED == 130
    else:
        pytest.fail("run_script returned")
    assert capsys.readouterr().err == "some_script.py: interrupted\n"


def _workers_ignoring_ctrl_c(pid: int) -> int:
    """How many child processes of ``pid`` ignore SIGINT (the tokenising pool's, once its initializer has run; not
    multiprocessing's resource tracker)."""
    found = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:  # a process that ended meanwhile
            continue
        if fields.get("PPid", "").strip() == str(pid) and int(fields.get("SigIgn", "0"), 16) & 1 << (signal.SIGINT - 1):
            try:  # not multiprocessing's resource tracker, which ignores SIGINT too
                found += b"resource_tracker" not in (status.parent / "cmdline").read_bytes()
            except OSError:
                continue
    return found


# slow: in the default run of a loaded 2-core CI machine it once waited 300 s for the script to end after Ctrl-C
# (2026-11-30), not seen on its own; run with -m slow until that is understood
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the workers' signal masks from /proc")
def test_ctrl_c_while_prepare_pretrain_en_tokenises_is_one_line(tmp_path):
    write_shard(tmp_path / "raw", paragraphs=200_000)  # seconds of tokenising, in two processes
    out = tmp_path / "tok"
    run = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "scripts" / "prepare_pretrain_en.py"),
            str(tmp_path / "raw"),
            str(out),
            "--processes",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, which Ctrl-C signals whole, as a terminal's
        # Ctrl-C handled as a terminal's process has it: a test process may ignore SIGINT (pytest-xdist's workers
        # do), and a process inherits that, Python then never raising KeyboardInterrupt
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 300
    while _workers_ignoring_ctrl_c(run.pid) < 2 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # until both tokenising processes run, Ctrl-C left to the script (was: a fixed 2 s, after
        # which a quiet machine had finished)
    assert run.poll() is None, "the run ended before its tokenising processes were seen: give it more text"
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=300)
    assert (run.returncode, err) == (INTERRUPTED, "prepare_pretrain_en.py: interrupted\n")
    assert not out.exists()
