"""`elmo pretrain --max-steps N` resumed from a run at step N or past it trains no step more (was: one
more, past N, before saying 'stopped at --max-steps N')."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.cli import main
from hf_elmo.training.checkpoints import LOSS_LOG, SETTINGS_FILE
from tests.hf_elmo.training.test_pretrain_safety import TINY, files_under
from tests.hf_elmo.training.test_pretraining import write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")


def trained(folder: Path) -> dict[str, bytes]:
    """What the run's steps wrote in its checkpoint folder (not settings.json, which records the run length)."""
    return {name: data for name, data in files_under(folder).items() if name != SETTINGS_FILE}


@pytest.mark.parametrize("again", ["1", "2"])
def test_a_run_resumed_at_or_past_max_steps_trains_no_step_more(again, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    argv = ["pretrain", str(corpus), str(tmp_path / "model"), *TINY, "--epochs", "5"]
    assert main([*argv, "--max-steps", "2"]) == 0
    folder = tmp_path / "model.checkpoint"
    assert (folder / "rng-rank0-step2.pt").is_file()
    before = trained(folder)
    capsys.readouterr()
    assert main([*argv, "--max-steps", again]) == 0
    past = " (the run was at step 2 already)" if again == "1" else ""
    assert capsys.readouterr().out.startswith(f"stopped at --max-steps {again}{past};")
    assert trained(folder) == before  # no step, no checkpoint: the losses of steps 1 and 2 alone
    assert len((folder / LOSS_LOG).read_text().splitlines()) == 3  # its header and two steps
