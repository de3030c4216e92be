"""What the biLM reads: one segment per sentence (or per doc), grouped under a token budget."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from spacy.tokens import Doc, Span

from hf_elmo.batching import token_budget_batches

from .call_stack import first_time

__all__ = ["Segment", "doc_segments", "sentences", "token_budget_batches"]

#: Tokens of a doc without sentence boundaries from which ``doc_segments`` warns that the biLM reads
#: it as one sequence (a step per token, none side by side: 1.48x as long as in its sentences on one CPU
#: thread and on two, a quiet machine; README gives the commands, ``scripts/bench_overheads.py long-doc``).
LONG_UNSPLIT_DOC = 1000


@dataclass(frozen=True)
class Segment:
    """A run of tokens the biLM reads as one sentence.

    ``doc`` is the position of its doc in the batch and ``token_indices`` the positions of its
    tokens in that doc; ``words`` their texts.
    """

    doc: int
    token_indices: tuple[int, ...]
    words: tuple[str, ...]


def sentences(doc: Doc) -> list[Span] | None:
    """The sentences the biLM reads ``doc`` in: ``doc.sents`` (a ``sents`` user hook's, if the doc
    has one, which ``token.is_sent_start`` does not show), or ``None`` when the doc has no
    sentence boundaries and is read whole. ``doc_key`` keys the activation cache by them."""
    return list(doc.sents) if doc.has_annotation("SENT_START") else None


def doc_segments(docs: Sequence[Doc], reader: object) -> list[Segment]:
    """Sentence segments of docs with sentence boundaries, else one segment per doc.

    Whitespace tokens are left out (ELMo was trained on tokenised text without them), so an
    empty or whitespace-only doc or sentence contributes no segment. A doc of ``LONG_UNSPLIT_DOC``
    tokens or more read whole is warned about once per ``reader`` (the biLM's shim: one a component), not
    per doc: a corpus of long documents would give a line for each.
    """
    segments = []
    for position, doc in enumerate(docs):
        spans = sentences(doc)
        if spans is None and len(doc) >= LONG_UNSPLIT_DOC and first_time(reader, "long doc read whole"):
            warnings.warn(
                f"a doc of {len(doc):,} tokens has no sentence boundaries, so the biLM reads it as one sequence, "
                "one step per token, none side by side (on a CPU, about 1.5 times as long as its sentences); add "
                "a sentencizer, senter or parser before the elmo component to read it sentence by sentence (said "
                "once for this biLM, however many such docs follow)",
                stacklevel=2,
            )
        for span in [doc[:]] if spans is None else spans:
            tokens = [token for token in span if not token.is_space]
            if tokens:
                segments.append(Segment(position, tuple(t.i for t in tokens), tuple(t.text for t in tokens)))
    return segments
