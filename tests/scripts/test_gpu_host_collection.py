"""The GPU host's ``pytest -m gpu`` (scripts/gpu/README.md) collects the whole suite without the
packages its image lacks: the export extra (onnx, onnxscript, onnxruntime), matplotlib, accelerate
and pytest-xdist. A test module that imports one of them at its top stops that collection with an
error, and with it the GPU tests of a device call that cannot be run again for lack of time."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

#: What the host's image has not, of what the test extra installs here (pytest-xdist: no plugin is loaded).
NOT_ON_THE_HOST = ("onnx", "onnxscript", "onnxruntime", "matplotlib", "accelerate")

COLLECT = f"""
import sys
for name in {NOT_ON_THE_HOST!r}:
    sys.modules[name] = None  # import fails, importlib.util.find_spec finds nothing, as where it is missing
import pytest
sys.exit(pytest.main(["-m", "gpu", "--collect-only", "-q", "-p", "no:cacheprovider"]))
"""


def test_the_gpu_tests_collect_without_the_packages_the_gpu_host_lacks():
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    run = subprocess.run(
        [sys.executable, "-c", COLLECT], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    errors = [line for line in run.stdout.splitlines() if line.startswith("ERROR")]
    assert run.returncode == 0 and not errors, run.stdout[-3000:] + run.stderr[-2000:]
    assert "tests/hf_elmo/test_cuda_graphs.py::" in run.stdout  # the GPU tests were collected
