"""`elmo pretrain --lr-schedule linear --warmup-steps N`: the rate of every step, and where a run ends."""

from __future__ import annotations

import pytest
import torch

from hf_elmo.training.checkpoints import CHECKPOINT_FILE
from hf_elmo.training.schedule import budget_spent, scheduled_lr
from hf_elmo.training.trainer import pretrain
from tests.hf_elmo.training.test_pretraining import settings_for, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")


def test_budget_spent_is_the_further_along_of_tokens_and_minutes():
    assert budget_spent(150, 600, 1e6, None) == 0.25  # no --max-minutes: tokens alone
    assert budget_spent(150, 600, 45.0, 1.0) == 0.75  # 45 s of a 1-minute run
    assert budget_spent(450, 600, 15.0, 1.0) == 0.75
    assert budget_spent(700, 600, 0.0, None) == 1.0  # the last step may overshoot the budget


def test_rates_warm_up_then_decay_linearly_to_zero():
    assert scheduled_lr(1e-3, "constant", 0, 5, 0.7) == 1e-3
    assert [scheduled_lr(1e-3, "constant", 4, n, 0.0) for n in range(6)] == pytest.approx(
        [2.5e-4, 5e-4, 7.5e-4, 1e-3, 1e-3, 1e-3], rel=1e-12
    )
    assert scheduled_lr(1e-3, "linear", 0, 10, 0.25) == pytest.approx(7.5e-4, rel=1e-12)
    assert scheduled_lr(1e-3, "linear", 4, 1, 0.5) == pytest.approx(2.5e-4, rel=1e-12)  # warm-up and decay
    assert scheduled_lr(1e-3, "linear", 0, 99, 1.0) == 0.0


def test_every_step_of_a_run_trains_with_its_scheduled_rate(tmp_path, monkeypatch):
    import hf_elmo.training.trainer as trainer

    seen: list[tuple[float, int]] = []  # (rate, words) of each step
    real_step = trainer.train_step

    def recording_step(model, optimizer, batch, *args):
        seen.append((optimizer.param_groups[0]["lr"], batch.n_words))
        return real_step(model, optimizer, batch, *args)

    monkeypatch.setattr(trainer, "train_step", recording_step)
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    settings = settings_for(tmp_path, corpus, max_tokens=600, lr=1e-2, lr_schedule="linear", warmup_steps=4)
    pretrain(settings, show_progress=False)
    assert len(seen) > 6
    words_before = 0
    for step, (rate, words) in enumerate(seen):
        expected = 1e-2 * min(1.0, (step + 1) / 4) * (1.0 - words_before / 600)
        assert rate == pytest.approx(expected, rel=1e-9, abs=1e-15), step
        words_before += words
    assert words_before >= 600
    # the rate after the last step (saved with the optimizer) is zero: the budget is spent
    checkpoint = torch.load(settings.resolved_checkpoint_dir() / CHECKPOINT_FILE, weights_only=True)
    assert checkpoint["optimizer"]["param_groups"][0]["lr"] == 0.0


def test_a_constant_rate_is_the_lr_option_at_every_step(tmp_path, monkeypatch):
    import hf_elmo.training.trainer as trainer

    rates: list[float] = []
    real_step = trainer.train_step

    def recording_step(model, optimizer, *args):
        rates.append(optimizer.param_groups[0]["lr"])
        return real_step(model, optimizer, *args)

    monkeypatch.setattr(trainer, "train_step", recording_step)
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    pretrain(settings_for(tmp_path, corpus, max_tokens=300, lr=3e-3), show_progress=False)
    assert rates and set(rates) == {3e-3}
