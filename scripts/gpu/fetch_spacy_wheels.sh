#!/usr/bin/env bash
# Downloads the wheels that bring spaCy to the GPU host, whose image has torch, transformers, numpy,
# h5py, safetensors, typer, requests and jinja2 but no spaCy and no network (issue 13 part 1;
# README.md beside this file has the device calls):
#   bash scripts/gpu/fetch_spacy_wheels.sh [DIR]     (default .whl, git-ignored; HOST_PYTHON=3.12)
# The versions are the ones the test suite runs with here, as CPython 3.12 x86-64 builds for the
# host. They come in two folders, each small enough to travel beside the working tree (42 MiB, 3.6
# MiB with the shipped weights set aside: scripts/gpu/README.md) in one device call (64 MiB):
# DIR/spacy-core (spaCy and blis, ~48 MiB; weights aside) and DIR/spacy-deps (the rest, ~11 MiB,
# carried with gpu-spacy/ from pack_spacy_data.py). On the host, once per machine:
#   python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/spacy-core/*.whl
#   python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/spacy-deps/*.whl
# and in every call `export PYTHONPATH=/tmp/site`. The project itself is installed there with
# `python3 -m pip install -q --no-index --no-deps --no-build-isolation -e .` (spaCy finds the
# "elmo" factory and the spacy-elmo.* architectures through its entry points), with PYTHONPATH
# set first: the build then takes the setuptools of spacy-deps (pyproject.toml's licence field
# needs setuptools >= 77; the host's may be older).
set -euo pipefail
dir=${1:-.whl}
py=${PYTHON:-python3}
download() {
  mkdir -p "$1"
  "$py" -m pip download -q --no-deps --only-binary=:all: --python-version "${HOST_PYTHON:-3.12}" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$@"
}
download "$dir/spacy-core" spacy==3.8.18 blis==1.3.4
download "$dir/spacy-deps" thinc==8.3.14 cymem==2.0.16 preshed==3.0.15 murmurhash==1.0.16 srsly==2.5.6 \
  wasabi==1.1.3 catalogue==2.0.10 confection==1.3.4 weasel==1.0.1 spacy-legacy==3.0.12 spacy-loggers==1.0.5 \
  pydantic==2.14.3 pydantic_core==2.50.4 annotated-types==0.8.0 typing-inspection==0.4.5 \
  typing_extensions==4.16.0 cloudpathlib==0.26.0 smart_open==9.0.2 setuptools==84.2.1
du -sh "$dir/spacy-core" "$dir/spacy-deps"
