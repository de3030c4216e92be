#!/usr/bin/env bash
# The main job: install (creates .venv) and run the demo with the model shipped in the package.
# Works offline once the packages are installed: the biLM is inside hf_elmo/pretrained/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/elmo demo "$@"
