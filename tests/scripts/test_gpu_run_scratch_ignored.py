"""The hidden folders that ``gpu_run.py pack`` and ``resplit`` work in beside the default ``gpu-pack/`` are git-ignored:
one that a killed run left in the working tree does not travel with the next device calls (was: resplit's was not)."""

from __future__ import annotations

import subprocess
from contextlib import contextmanager

import hf_elmo.fileio
from tests.conftest import REPO, load_script
from tests.hf_elmo.training.test_pretraining import write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_the_scratch_folders_beside_the_pack_are_ignored(tmp_path, monkeypatch):
    tokenised, pack = tmp_path / "tok", tmp_path / gpu_run.PACK_DIR.name
    tokenised.mkdir()
    write_corpus(tokenised / "train.txt", n=50)
    write_corpus(tokenised / "valid.txt", n=5, seed=1)
    prefixes = []
    scratch_folder = hf_elmo.fileio.scratch_folder

    @contextmanager
    def recorded(prefix, parent=None):
        prefixes.append(prefix)
        with scratch_folder(prefix, parent) as folder:
            yield folder

    monkeypatch.setattr(hf_elmo.fileio, "scratch_folder", recorded)
    gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(pack), "--part-mib", "0.01", "--min-count", "1"])
    gpu_run.main(["resplit", "--out", str(pack), "--part-mib", "0.005"])
    assert len(prefixes) == 2
    for prefix in prefixes:
        left = REPO / f"{prefix}abcdefgh" / "bundle.tar.xz"
        ignored = subprocess.run(["git", "check-ignore", "-q", str(left)], cwd=REPO)
        assert ignored.returncode == 0, f"{left.parent.name} is not git-ignored"
