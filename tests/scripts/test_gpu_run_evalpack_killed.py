"""``gpu_run.py evalpack`` killed after swapping the new pack in leaves nothing beside the pack that the next run
does not remove: the pack it replaced is moved into the run's own scratch folder (was: beside it, as
``.PACK.evalpack-XXXXXXXX.old``, which no run removed)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO, load_script
from tests.scripts.test_gpu_run_evalpack_whole import _pack

gpu_run = load_script("scripts/gpu/gpu_run.py")

KILLED_AFTER_THE_SWAP = """
import os, signal, sys
from hf_elmo import fileio
from tests.conftest import load_script

swap = fileio.swap_folder_in

def swap_then_killed(*args):
    swap(*args)
    os.kill(os.getpid(), signal.SIGKILL)

fileio.swap_folder_in = swap_then_killed
load_script("scripts/gpu/gpu_run.py").main(sys.argv[1:])
"""


def test_an_evalpack_killed_after_the_swap_leaves_nothing_the_next_run_does_not_remove(tmp_path):
    pack, argv = _pack(tmp_path)
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_THE_SWAP, *argv], cwd=REPO, check=False)
    assert killed.returncode == -9
    assert "eval" in json.loads((pack / "manifest.json").read_text())  # the new pack was swapped in
    gpu_run.main(argv)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "test.txt", "wiki.test.tokens"]
