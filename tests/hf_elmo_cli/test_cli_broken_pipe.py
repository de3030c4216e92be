"""A command whose stdout reader leaves (`elmo ... | head -0`) ends quietly with the shells' SIGPIPE
status, as other tools do (was: 'elmo convert: error: [Errno 32] Broken pipe', status 2, a usage error's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hf_elmo_cli import BROKEN_PIPE
from tests.numpy_elmo import small_options, write_random_original

ELMO = Path(sys.executable).parent / "elmo"


def test_a_closed_stdout_ends_the_command_quietly(tmp_path):
    original = tmp_path / "original"
    original.mkdir()
    write_random_original(original, small_options(), seed=3)
    argv = [str(ELMO), "convert", str(original / "options.json"), str(original / "weights.hdf5"), str(tmp_path / "m")]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader leaves before the command prints "wrote ..."
    err = process.stderr.read()
    assert process.wait(timeout=300) == BROKEN_PIPE
    assert err == ""
    assert (tmp_path / "m" / "config.json").is_file()  # what the command writes is whole: only its report was lost
