#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project, pinned torch and test tools into it.
# torch is pinned: on these machines torch==2.13.0 is a CPU build on disk; a looser spec can pull
# several GB of CUDA packages.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[test]"
