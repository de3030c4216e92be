"""``gpu_run.py evaluate`` writes perplexity.json, in WORK and in OUT, whole or not at all: a write that fails midway
(a full disk) leaves the earlier one as it was (was: written in place, a truncated file left)."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import load_script
from tests.hf_elmo.training.test_pretraining import write_corpus

gpu_run = load_script("scripts/gpu/gpu_run.py")

EARLIER = "the earlier figures\n"


def _work_folder(work: Path) -> None:
    """A work folder as ``start`` and ``poll`` leave it: a tiny model, done, and a valid text."""
    from hf_elmo.corpus import read_corpus
    from hf_elmo.training.vocab import VOCAB_FILE, build_vocabulary
    from tests.hf_elmo.training.test_pretraining import tiny_lm

    valid = write_corpus(work.parent / "valid.txt", n=5)
    vocab = build_vocabulary(read_corpus(valid))
    tiny_lm(len(vocab)).save_pretrained(work / gpu_run.RUN_NAME)
    vocab.save(work / gpu_run.RUN_NAME / VOCAB_FILE)
    (work / gpu_run.RUN_NAME / "training.json").write_text(json.dumps({"position": {"tokens_seen": 9, "step": 1}}))
    (work / "data").mkdir()
    shutil.copyfile(valid, work / "data" / "valid.txt")


@pytest.mark.parametrize("full", ["work", "eval"])
def test_a_perplexity_json_that_fails_midway_leaves_the_earlier_one(full, tmp_path, monkeypatch, capsys):
    work, out = tmp_path / "work", tmp_path / "eval"
    _work_folder(work)
    out.mkdir()
    for folder in (work, out):
        (folder / "perplexity.json").write_text(EARLIER)
    write_text = Path.write_text

    def fill_the_disk(self, data, *args, **kwargs):  # in the full folder: part of the text, then a full disk's error
        if self.parent != tmp_path / full:
            return write_text(self, data, *args, **kwargs)
        write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", fill_the_disk)
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(["evaluate", "--work", str(work), "--device", "cpu", "--out", str(out)])
    assert stopped.value.code == 1
    assert "No space left on device" in capsys.readouterr().err.splitlines()[-1]
    assert (tmp_path / full / "perplexity.json").read_text() == EARLIER
    assert [path.name for path in (tmp_path / full).glob(".*")] == []  # no temporary file left
