"""A script's failure far from its parser is one line, ``SCRIPT: error: ...``, exit code 1, as ``exit_with_error``
says the others (was, for these: a bare message, or elmo embed's whole stderr under 'the run on ... failed:')."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, load_script


def test_a_missing_shared_folder_names_the_script(tmp_path, monkeypatch):
    monkeypatch.setenv("ELMO_SHARED", str(tmp_path))
    monkeypatch.setattr(sys, "argv", [str(REPO / "scripts" / "bench_onnx.py")])
    with pytest.raises(SystemExit) as stopped:
        load_script("scripts/shared_data.py").shared_dir()
    assert str(stopped.value) == (
        f"bench_onnx.py: error: ../shared (or $ELMO_SHARED) not found at {tmp_path}: "
        "the options files and data live there"
    )


def test_pack_spacy_data_says_what_does_not_fit_in_one_line(shared, tmp_path):
    wheels = tmp_path / "whl"
    wheels.mkdir()
    with open(wheels / "big.whl", "wb") as handle:  # sparse: 63 MiB counted, nothing written
        handle.truncate(63 << 20)
    run = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gpu" / "pack_spacy_data.py"), "--out", str(tmp_path / "gpu-spacy")]
        + ["--tasks", "sst2", "--with", str(wheels)],
        capture_output=True,
        text=True,
        env={**os.environ, "ELMO_SHARED": str(shared)},
        timeout=300,
    )
    assert run.returncode == 1
    assert run.stderr.startswith("pack_spacy_data.py: error: gpu-spacy: ") and run.stderr.count("\n") == 1
    assert run.stderr.endswith("exceed one device call's 64 MiB: pack fewer --tasks or carry less\n")


def test_bench_embed_says_why_a_run_failed_in_one_line(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("the cat sat .\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_embed.py"), str(text), "--stub-model", "--layers", "every"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1
    assert run.stderr.startswith(
        f"bench_embed.py: error: the run on {REPO} failed (exit 2): elmo embed: error: argument --layers: "
        "invalid choice: 'every'"
    )
    assert run.stderr.count("\n") == 1
