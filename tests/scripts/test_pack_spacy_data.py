"""scripts/gpu/pack_spacy_data.py: the files bench_spacy reads, laid out like ../shared, size-checked."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

PACK = REPO / "scripts" / "gpu" / "pack_spacy_data.py"


def pack(shared, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ELMO_SHARED": str(shared)}
    return subprocess.run([sys.executable, str(PACK), *args], capture_output=True, text=True, env=env, timeout=300)


def test_pack_copies_the_task_files_sources_and_fixtures_like_shared(shared, tmp_path):
    out = tmp_path / "gpu-spacy"
    run = pack(shared, "--out", str(out), "--tasks", "sst2", "conll2003", "--with")
    assert run.returncode == 0, run.stderr
    expected = [
        "data/sst/SOURCE.txt",
        *(f"data/sst/sentence-level/stsa.binary.{split}" for split in ("train", "dev", "test")),
        "data/conll2003-en/SOURCE.txt",
        *(f"data/conll2003-en/eng.{split}" for split in ("train", "testa", "testb")),
    ]
    for name in expected:
        assert (out / name).read_bytes() == (shared / name).read_bytes(), name
    assert not (out / "data" / "sst" / "sentence-level" / "stsa.fine.train").exists()  # sst5 not asked for
    fixtures = sorted(p.relative_to(shared) for p in (shared / "fixtures").rglob("*") if p.is_file())
    assert fixtures and all((out / f).read_bytes() == (shared / f).read_bytes() for f in fixtures)
    assert "of 64 MiB" in run.stdout


@pytest.mark.slow  # ~8 s: packs the data twice
def test_pack_refuses_an_existing_folder_and_leaves_it(shared, tmp_path):
    out = tmp_path / "gpu-spacy"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    run = pack(shared, "--out", str(out), "--tasks", "sst2", "--with")
    assert run.returncode != 0 and "exists (pass --overwrite" in run.stderr
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    assert pack(shared, "--out", str(out), "--tasks", "sst2", "--with", "--overwrite").returncode == 0
    assert not (out / "mine.txt").exists() and (out / "data" / "sst" / "sentence-level").is_dir()


def test_pack_refuses_what_does_not_fit_one_device_call(shared, tmp_path):
    wheels = tmp_path / "whl"
    wheels.mkdir()
    with open(wheels / "big.whl", "wb") as handle:  # sparse: 63 MiB counted, nothing written
        handle.truncate(63 << 20)
    out = tmp_path / "gpu-spacy"
    run = pack(shared, "--out", str(out), "--tasks", "conll2003", "--with", str(wheels))
    assert run.returncode != 0 and "exceed one device call's 64 MiB" in run.stderr
    assert not out.exists() and not list(tmp_path.glob(".gpu-spacy*"))


def test_pack_counts_the_shipped_weights_which_travel_with_the_spacy_calls(shared, tmp_path):
    wheels = tmp_path / "whl"
    wheels.mkdir()
    with open(wheels / "big.whl", "wb") as handle:  # sparse: fits beside the tree less its weights, not with them
        handle.truncate(30 << 20)
    run = pack(shared, "--out", str(tmp_path / "gpu-spacy"), "--tasks", "sst2", "--with", str(wheels))
    assert run.returncode != 0 and "exceed one device call's 64 MiB" in run.stderr
