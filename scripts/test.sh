#!/usr/bin/env bash
# Installs the project with its test dependencies into .venv (created if missing), lints the tree
# and checks its layout (ruff check, ruff format --check), type-checks the packages and scripts (mypy; all
# configured in pyproject.toml) and runs the default test suite, one pytest-xdist worker per core
# (the tests are independent: tmp folders, free ports; `-n 0` as an argument runs them in one process).
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -n auto "$@"
