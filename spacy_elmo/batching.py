"""What the biLM reads: one segment per sentence (or per doc), grouped under a token budget."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

from spacy.tokens import Doc


@dataclass(frozen=True)
class Segment:
    """A run of tokens the biLM reads as one sentence.

    ``doc`` is the position of its doc in the batch and ``token_indices`` the positions of its
    tokens in that doc; ``words`` their texts.
    """

    doc: int
    token_indices: Tuple[int, ...]
    words: Tuple[str, ...]


def doc_segments(docs: Sequence[Doc]) -> List[Segment]:
    """Sentence segments of docs with sentence boundaries, else one segment per doc.

    Whitespace tokens are left out (ELMo was trained on tokenised text without them), so an
    empty or whitespace-only doc or sentence contributes no segment.
    """
    segments = []
    for position, doc in enumerate(docs):
        spans = doc.sents if doc.has_annotation("SENT_START") else [doc[:]]
        for span in spans:
            tokens = [token for token in span if not token.is_space]
            if tokens:
                segments.append(
                    Segment(position, tuple(t.i for t in tokens), tuple(t.text for t in tokens))
                )
    return segments


def token_budget_batches(lengths: Sequence[int], token_budget: int) -> List[List[int]]:
    """Group segment indices so that each batch's padded size (rows x longest) fits the budget.

    Segments are taken longest first, so rows of a batch have similar lengths. A segment longer
    than the budget forms a batch of its own: the budget bounds batching, not document length.
    """
    if token_budget < 1:
        raise ValueError(f"token_budget must be at least 1, got {token_budget}")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: List[List[int]] = []
    for index in order:
        if batches and (len(batches[-1]) + 1) * lengths[batches[-1][0]] <= token_budget:
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches
