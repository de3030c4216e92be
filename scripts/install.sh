#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project (distribution hf-elmo), pinned torch and
# what the tests need (the test extra: pytest, ruff, mypy, matplotlib for the layer-weight plot...) into it.
# torch is pinned: on these machines torch==2.13.0 is a CPU build on disk; a looser spec can pull
# several GB of CUDA packages.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
# A checkout installed under the old distribution name `elmo` keeps its metadata, which spaCy
# would name as the pipelines' requirement: remove it.
if .venv/bin/python -m pip show -q elmo >/dev/null 2>&1; then .venv/bin/python -m pip uninstall -q -y elmo; fi
rm -rf elmo.egg-info
.venv/bin/python -m pip install -q -e ".[test]"
