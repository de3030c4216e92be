#!/usr/bin/env bash
# Downloads the wheels that run AllenNLP 2.10.1's ELMo (allennlp_gpu_ref.py) on a GPU machine that
# has torch, numpy, h5py and transformers 5.x but no network: they are installed there into a
# folder of their own, ahead of the machine's packages, for the reference run only.
#   bash scripts/reference/fetch_gpu_wheels.sh DIR        (about 17 MB; DIR must not be committed)
# On the GPU machine:
#   python3 -m pip install -q --no-index --no-deps --target /tmp/ref DIR/*.whl
#   printf '#!/bin/sh\nPYTHONPATH=/tmp/ref exec python3 "$@"\n' > /tmp/refpy && chmod +x /tmp/refpy
#   python3 scripts/bench_inference.py --device cuda --reference-python /tmp/refpy \
#       --reference-runner scripts/reference/allennlp_gpu_ref.py
set -euo pipefail
dir=${1:?usage: fetch_gpu_wheels.sh DIR}
py=${PYTHON:-python3}
mkdir -p "$dir"
"$py" -m pip download -q --no-deps -d "$dir" allennlp==2.10.1 transformers==4.57.6 huggingface_hub==0.36.2 \
  cached_path==1.8.10 dill==0.4.1 base58==2.1.1 more-itertools==11.2.1
# tokenizers is compiled (abi3: any CPython >= 3.9); transformers 4.57 needs <= 0.23.0
"$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_17_x86_64 -d "$dir" tokenizers==0.22.2
# fairscale ships a source release only: build its pure-python wheel
"$py" -m pip wheel -q --no-deps -w "$dir" fairscale==0.4.13
ls "$dir"
