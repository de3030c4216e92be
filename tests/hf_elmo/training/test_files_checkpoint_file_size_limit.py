"""``elmo pretrain`` refuses, before writing it, a checkpoint that would pass the process's file size limit
(``ulimit -f``), in one line that names the limit and says to raise it, the last checkpoint kept (was: torch's
``could not write ... ([enforce fail at inline_container.cc:672] . unexpected pos 88320 vs 88208)``, and the advice
to run the same command again, which failed the same way)."""

from __future__ import annotations

import resource

import hf_elmo.fileio
from hf_elmo.training.checkpoints import CHECKPOINT_FILE
from tests.hf_elmo.training.test_pretrain_safety import error_of, pretrain
from tests.hf_elmo.training.test_pretraining import write_corpus


def test_a_checkpoint_past_the_file_size_limit_is_one_line_and_the_last_one_is_kept(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "2", "--max-steps", "2") == 0
    saved = (folder / CHECKPOINT_FILE).read_bytes()
    capsys.readouterr()
    monkeypatch.setattr(hf_elmo.fileio.resource, "getrlimit", lambda kind: (20_000, resource.RLIM_INFINITY))
    assert pretrain(corpus, out, "--epochs", "2", "--checkpoint-every-steps", "1") == 2
    line = error_of(capsys)
    assert line.startswith("elmo pretrain: error: the checkpoint of step 3 needs about ") and line.endswith(
        " bytes, over this process's file size limit (20,000 bytes: ulimit -f); raise the limit and run the same "
        "command again: it resumes from the last checkpoint, if one was taken"
    )
    assert (folder / CHECKPOINT_FILE).read_bytes() == saved and not list(folder.glob("*.tmp"))
