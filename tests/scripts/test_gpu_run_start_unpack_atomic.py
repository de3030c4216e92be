"""``gpu_run.py start`` unpacks each bundle in a scratch folder in WORK and moves its files into WORK/data only when all
are whole: an unpacking that fails midway (a full disk) leaves no file of it in WORK/data, and the next ``start``
unpacks it again (was: extracted in place, so a truncated vocab.txt beside the others was taken as unpacked and
trained on, and the joined bundle was left in WORK)."""

from __future__ import annotations

import errno
import tarfile

import pytest

from tests.conftest import load_script
from tests.hf_elmo.training.test_pretraining import write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_an_unpacking_that_fails_midway_leaves_no_file_and_is_done_again(tmp_path, monkeypatch, capsys):
    tokenised, pack, work = tmp_path / "tok", tmp_path / "gpu-pack", tmp_path / "work"
    tokenised.mkdir()
    write_corpus(tokenised / "train.txt", n=50)
    write_corpus(tokenised / "valid.txt", n=5, seed=1)
    gpu_run.main(["pack", "--tokenised", str(tokenised), "--out", str(pack), "--part-mib", "0.01", "--min-count", "1"])
    gpu_run.main(["stash", "--pack", str(pack), "--work", str(work)])
    monkeypatch.setattr(gpu_run, "_launch", lambda work, name, command: 4242)
    extractall = tarfile.TarFile.extractall

    def fill_the_disk(self, path, *args, **kwargs):  # all but the last file's end, then a full disk's error
        extractall(self, path, *args, **kwargs)
        last = f"{path}/{gpu_run.DATA_FILES[-1]}"
        with open(last, "r+b") as handle:
            handle.truncate(3)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tarfile.TarFile, "extractall", fill_the_disk)
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(["start", "--work", str(work)])
    assert stopped.value.code == 1
    assert "No space left on device" in capsys.readouterr().err.splitlines()[-1]
    assert list((work / "data").iterdir()) == []
    assert sorted(path.name for path in work.iterdir()) == ["data", "parts"]
    monkeypatch.setattr(tarfile.TarFile, "extractall", extractall)
    gpu_run.main(["start", "--work", str(work)])
    for name in ("train.txt", "valid.txt"):
        assert (work / "data" / name).read_bytes() == (tokenised / name).read_bytes()
