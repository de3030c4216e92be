"""`elmo pretrain`'s usage errors are said at once: whether this process says them (rank 0 under torchrun) is read
from torchrun's environment without importing torch (``hf_elmo.torchrun.is_rank0``; was: seconds importing
``hf_elmo.training.distributed`` first)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

USAGE_ERROR = """
import sys
import hf_elmo_cli
try:
    hf_elmo_cli.main(["pretrain", "train.txt"])
except SystemExit as stopped:
    print("exit:", stopped.code)
print("heavy imports:", sorted(m for m in ("torch", "transformers", "hf_elmo") if m in sys.modules))
"""


@pytest.mark.parametrize(("rank", "said"), [(None, True), ("0", True), ("1", False)])
def test_a_usage_error_of_pretrain_imports_no_torch(rank, said, tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in ("RANK", "WORLD_SIZE")}
    if rank is not None:
        env.update(RANK=rank, WORLD_SIZE="2")
    result = subprocess.run(
        [sys.executable, "-c", USAGE_ERROR], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path
    )
    assert result.stdout.splitlines()[-2:] == ["exit: 2", "heavy imports: []"]
    error = "elmo pretrain: error: the following arguments are required: OUTPUT_DIR and one of --epochs --max-tokens"
    assert (result.stderr.strip().splitlines()[-1:] == [error]) is said, result.stderr
