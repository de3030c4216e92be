"""`elmo pretrain` killed (kill -9, a real one) while it writes a checkpoint resumes from the checkpoint before it to
the weights of an uninterrupted run: the half-written checkpoint is a hidden temporary file beside the whole one,
which the resumed run removes; killed while it writes a snapshot (--snapshot-tokens), the resumed run writes it whole
and removes the folder the killed one built it in."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import torch
import transformers.modeling_utils

import hf_elmo.training.checkpoints as checkpoints
from hf_elmo.fileio import is_temporary_file
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.training.checkpoints import snapshot_folder
from hf_elmo.training.evaluation import load_lm
from hf_elmo.training.settings import PretrainSettings
from hf_elmo.training.trainer import pretrain
from tests.hf_elmo.training.test_pretraining import settings_for, write_corpus

FORK = multiprocessing.get_context("fork")


def _pretrain_killed_in_the_checkpoint_of_step_8(settings: PretrainSettings) -> None:
    """``pretrain(settings)``, the process killed (SIGKILL) once its checkpoint of step 8 is partly written."""
    save = torch.save

    def killed(obj: Any, f: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(obj, dict) and obj.get("step") == 8 and "model" in obj:
            Path(f).write_bytes(b"PK\x03\x04" + b"\x00" * 1000)
            os.kill(os.getpid(), signal.SIGKILL)
        save(obj, f, *args, **kwargs)

    torch.save = killed
    pretrain(settings, show_progress=False)


def test_a_run_killed_in_a_checkpoint_resumes_from_the_one_before_to_the_uninterrupted_weights(tmp_path, one_thread):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    expected = ElmoForBidirectionalLM.from_pretrained(
        pretrain(settings_for(tmp_path / "a", corpus), show_progress=False)
    ).state_dict()
    settings = settings_for(tmp_path / "b", corpus)
    killed = FORK.Process(target=_pretrain_killed_in_the_checkpoint_of_step_8, args=(settings,))
    killed.start()
    killed.join(timeout=300)
    assert killed.exitcode == -signal.SIGKILL
    folder = settings.resolved_checkpoint_dir()
    (half,) = [path for path in folder.iterdir() if is_temporary_file(path, checkpoints.CHECKPOINT_FILE)]
    assert torch.load(folder / checkpoints.CHECKPOINT_FILE, weights_only=True)["step"] == 4
    assert not Path(settings.output_dir).exists()
    resumed = ElmoForBidirectionalLM.from_pretrained(pretrain(settings, show_progress=False)).state_dict()
    for name in expected:
        torch.testing.assert_close(resumed[name], expected[name], rtol=0, atol=0, msg=name)
    assert not half.exists()


def _pretrain_killed_in_the_snapshot(settings: PretrainSettings) -> None:
    """``pretrain(settings)``, the process killed (SIGKILL) once the weights of its snapshot are partly written."""

    def killed(tensors: Any, filename: str, *args: Any, **kwargs: Any) -> None:
        Path(filename).write_bytes(b"\x00" * 1000)
        os.kill(os.getpid(), signal.SIGKILL)

    transformers.modeling_utils.safe_save_file = killed
    pretrain(settings, show_progress=False)


def test_a_run_killed_in_a_snapshot_writes_it_whole_when_resumed(tmp_path, one_thread):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    whole = settings_for(tmp_path / "a", corpus, snapshot_tokens=300)
    pretrain(whole, show_progress=False)
    expected = load_lm(snapshot_folder(whole.resolved_checkpoint_dir(), 300)).state_dict()
    settings = settings_for(tmp_path / "b", corpus, snapshot_tokens=300)
    killed = FORK.Process(target=_pretrain_killed_in_the_snapshot, args=(settings,))
    killed.start()
    killed.join(timeout=300)
    assert killed.exitcode == -signal.SIGKILL
    folder = settings.resolved_checkpoint_dir()
    assert not snapshot_folder(folder, 300).exists()
    (staging,) = [path for path in folder.iterdir() if path.name.startswith(f".{snapshot_folder(folder, 300).name}.")]
    pretrain(settings, show_progress=False)
    got = load_lm(snapshot_folder(folder, 300)).state_dict()
    for name, value in expected.items():
        torch.testing.assert_close(got[name], value, rtol=0, atol=0, msg=name)
    assert not staging.exists()
