"""The learning rate of every step (``--lr-schedule``, ``--warmup-steps``).

``constant`` keeps ``--lr``; ``linear`` decays it linearly to zero over the run's budget. The
budget is what ends the run: its tokens (``--max-tokens`` or ``--epochs``) or, with
``--max-minutes``, its training time, whichever is further along, so a run cut short by the clock
still ends with a rate near zero. Either schedule can start with a linear warm-up from
``lr / warmup_steps`` to ``lr`` over the first ``warmup_steps`` steps.

A run without ``--max-minutes`` has the same rate at every step however often it was
interrupted and resumed (tokens seen are part of its checkpoint); with ``--max-minutes`` the
rate follows the training time, which no two runs share exactly.
"""

from __future__ import annotations

LR_SCHEDULES = ("constant", "linear")


def budget_spent(tokens_seen: int, total_tokens: int, run_seconds: float, max_minutes: float | None) -> float:
    """The fraction in [0, 1] of the run's budget spent after ``tokens_seen`` tokens and
    ``run_seconds`` of training: of its tokens, or of its minutes when that is further along."""
    spent = tokens_seen / total_tokens
    if max_minutes is not None:
        spent = max(spent, run_seconds / (60.0 * max_minutes))
    return min(max(spent, 0.0), 1.0)


def scheduled_lr(lr: float, schedule: str, warmup_steps: int, steps_done: int, spent: float) -> float:
    """The rate of the next step, after ``steps_done`` steps have spent the fraction ``spent``
    of the budget (``budget_spent``)."""
    warmup = min(1.0, (steps_done + 1) / warmup_steps) if warmup_steps > 0 else 1.0
    decay = 1.0 - spent if schedule == "linear" else 1.0
    return lr * warmup * decay
