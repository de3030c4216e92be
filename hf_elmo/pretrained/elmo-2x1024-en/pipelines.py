"""transformers pipelines for ELMo task models that the stock pipelines cannot serve."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from transformers import TokenClassificationPipeline


class ElmoTokenClassificationPipeline(TokenClassificationPipeline):
    """``pipeline("token-classification")`` for ``ElmoForTokenClassification``.

    Use it as ``pipeline("token-classification", model=..., pipeline_class=ElmoTokenClassificationPipeline)``.
    The stock pipeline reads each position's token as one integer id (``int(input_ids[i])``);
    an ELMo position is a row of character ids and always a whole word, so this one takes each
    word's text from its character span (the tokenizer's ``offset_mapping``) and never marks a
    word as a sub-word. Aggregation ``"none"`` and ``"simple"`` (B-/I- grouping) apply as usual.
    """

    # Pipeline.preprocess is typed to return one dict; a ChunkPipeline's (this one's base) yields them.
    def preprocess(  # type: ignore[override]
        self, sentence: str, offset_mapping: list[list[tuple[int, int]]] | None = None, **preprocess_params: Any
    ) -> Iterator[dict[str, Any]]:
        if self.tokenizer is None:
            raise ValueError(f"{type(self).__name__} needs the model's tokenizer: pass tokenizer= to pipeline()")
        if offset_mapping is None and isinstance(sentence, str):
            offset_mapping = [self.tokenizer(sentence, return_offsets_mapping=True)["offset_mapping"]]
        yield from super().preprocess(sentence, offset_mapping=offset_mapping, **preprocess_params)

    def gather_pre_entities(
        self,
        sentence: str,
        input_ids: np.ndarray,
        scores: np.ndarray,
        offset_mapping: Sequence[tuple[int, int]] | None,
        special_tokens_mask: np.ndarray,
        aggregation_strategy: Any,
        word_ids: list[int | None] | None = None,
        word_to_chars_map: list[tuple[int, int]] | None = None,
    ) -> list[dict[str, Any]]:
        """One entry per word: its text, span, position and label scores (N,)."""
        assert offset_mapping is not None, "preprocess gives every sentence its offset_mapping"
        entities = []
        for index, token_scores in enumerate(scores):
            if special_tokens_mask[index]:
                continue
            start, end = (int(x) for x in offset_mapping[index])
            entities.append(
                {
                    "word": sentence[start:end],
                    "scores": token_scores,
                    "start": start,
                    "end": end,
                    "index": index,
                    "is_subword": False,
                }
            )
        return entities
