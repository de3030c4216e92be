"""Batches of whole sentences under a budget of padded tokens (rows x longest row)."""

from __future__ import annotations

from collections.abc import Sequence


def token_budget_batches(lengths: Sequence[int], token_budget: int) -> list[list[int]]:
    """Group segment indices so that each batch's padded size (rows x longest) fits the budget.

    Segments are taken longest first, so rows of a batch have similar lengths. A segment longer
    than the budget forms a batch of its own: the budget bounds batching, not document length.
    """
    if token_budget < 1:
        raise ValueError(f"token_budget must be at least 1, got {token_budget}")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    for index in order:
        if batches and (len(batches[-1]) + 1) * lengths[batches[-1][0]] <= token_budget:
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches
