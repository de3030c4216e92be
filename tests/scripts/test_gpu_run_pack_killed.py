"""``gpu_run.py pack --overwrite`` killed after swapping the new pack in leaves nothing beside it that the next run
does not remove: the earlier pack is moved into the run's own scratch folder (was: beside it, as
``.OUT.packing-XXXXXXXX.old``, which no run removed)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO, load_script
from tests.scripts.test_gpu_run_evalpack_killed import KILLED_AFTER_THE_SWAP
from tests.scripts.test_gpu_run_pack_overwrite import earlier_pack

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_a_pack_killed_after_the_swap_leaves_nothing_the_next_run_does_not_remove(tmp_path):
    out, argv = earlier_pack(tmp_path)
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_THE_SWAP, *argv], cwd=REPO, check=False)
    assert killed.returncode == -9
    assert "pieces" in json.loads((out / "manifest.json").read_text())  # the new pack was swapped in
    gpu_run.main(argv)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
