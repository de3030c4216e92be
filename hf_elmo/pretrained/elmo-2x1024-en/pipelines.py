"""transformers pipelines for ELMo task models that the stock pipelines cannot serve."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from transformers import TokenClassificationPipeline
from transformers.pipelines.token_classification import AggregationStrategy


class ElmoTokenClassificationPipeline(TokenClassificationPipeline):
    """``pipeline("token-classification")`` for ``ElmoForTokenClassification``.

    Use it as ``pipeline("token-classification", model=..., pipeline_class=ElmoTokenClassificationPipeline)``.
    The stock pipeline reads each position's token as one integer id (``int(input_ids[i])``);
    an ELMo position is a row of character ids and always a whole word, so this one takes each
    word's text from its character span (the tokenizer's ``offset_mapping``) and never marks a
    word as a sub-word. Aggregation ``"none"`` and ``"simple"`` (B-/I- grouping) apply as usual;
    ``"first"``, ``"average"`` and ``"max"``, ways of merging a word's sub-words, give what
    ``"simple"`` gives (the stock pipeline refuses them for a tokenizer that is not "fast").
    Pre-split words (``is_split_into_words=True``, one list or a batch of lists) are read as they
    are, one position each, as the stock pipeline reads them with a fast tokenizer: the sentence is
    the words joined by ``delimiter`` (default ``" "``), which the entities' ``start``/``end`` index.
    A grouped entity's ``word`` is the text it spans, ``text[start:end]`` ("Paris." where the words
    are "Paris" and "."); of pre-split words, it is its words joined by spaces.
    """

    def _sanitize_parameters(self, aggregation_strategy: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]  # keywords only, as pipelines pass them
        # the stock pipeline's error for a stride asks for a fast tokenizer, which ELMo has none of
        if kwargs.get("stride") is not None:
            raise ValueError(
                "ElmoTokenClassificationPipeline takes no stride: the biLM reads a sentence of any length whole, "
                "with no window to slide; leave stride unset"
            )
        if aggregation_strategy is not None:
            aggregation_strategy = _whole_word_strategy(aggregation_strategy)
        preprocess_params, forward_params, postprocess_params = super()._sanitize_parameters(
            aggregation_strategy=aggregation_strategy, **kwargs
        )
        postprocess_params["is_split_into_words"] = preprocess_params["is_split_into_words"]
        return preprocess_params, forward_params, postprocess_params

    # Pipeline.preprocess is typed to return one dict; a ChunkPipeline's (this one's base) yields them.
    def preprocess(  # type: ignore[override]
        self,
        sentence: str | list[str],
        offset_mapping: list[list[tuple[int, int]]] | None = None,
        **preprocess_params: Any,
    ) -> Iterator[dict[str, Any]]:
        if self.tokenizer is None:
            raise ValueError(f"{type(self).__name__} needs the model's tokenizer: pass tokenizer= to pipeline()")
        if preprocess_params["is_split_into_words"]:
            yield self._preprocess_words(sentence, preprocess_params["delimiter"], preprocess_params)
            return
        if offset_mapping is None and isinstance(sentence, str):
            # truncated as super().preprocess truncates the positions, so that each keeps its own word's span
            encoding = self.tokenizer(sentence, return_offsets_mapping=True, truncation=self._truncation())
            offset_mapping = [encoding["offset_mapping"]]
        yield from super().preprocess(sentence, offset_mapping=offset_mapping, **preprocess_params)

    def _preprocess_words(
        self, words: Sequence[str], delimiter: str, preprocess_params: dict[str, Any]
    ) -> dict[str, Any]:
        """The model inputs of one pre-split sentence: its words encoded as they are (the stock
        pipeline's way needs a fast tokenizer), each word's span in ``delimiter.join(words)``."""
        assert self.tokenizer is not None, "preprocess checked it"
        inputs = self.tokenizer(
            [words] if isinstance(words, list) else words,  # not a list: the tokenizer says what to pass
            is_split_into_words=True,
            return_tensors="pt",
            truncation=self._truncation(),
            return_special_tokens_mask=True,
            **preprocess_params.get("tokenizer_params", {}),
        )
        spans, start = [], 0
        for word in words:
            spans.append((start, start + len(word)))
            start += len(word) + len(delimiter)
        kept = inputs["input_ids"].shape[1]  # fewer than the words where truncation cut the sentence
        first = len(words) - kept if self.tokenizer.truncation_side == "left" else 0
        return {
            **inputs,
            "offset_mapping": [spans[first : first + kept]],
            "sentence": delimiter.join(words),
            "is_last": True,
        }

    def _truncation(self) -> bool:
        """Whether the stock preprocess truncates sentences (to ``model_max_length`` words)."""
        assert self.tokenizer is not None, "preprocess checked it"
        return bool(self.tokenizer.model_max_length and self.tokenizer.model_max_length > 0)

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

    def postprocess(  # type: ignore[override]  # takes is_split_into_words too, which _sanitize_parameters passes
        self,
        all_outputs: list[dict[str, Any]],
        aggregation_strategy: Any = AggregationStrategy.NONE,
        ignore_labels: list[str] | None = None,
        is_split_into_words: bool = False,
    ) -> list[dict[str, Any]]:
        """The stock entities, each one's ``word`` the text it spans where the input was text (the
        stock pipeline joins a group's words with the tokenizer's ``convert_tokens_to_string``:
        "Paris ." for "Paris.", "Jean - Pierre" for "Jean-Pierre")."""
        entities: list[dict[str, Any]] = super().postprocess(all_outputs, aggregation_strategy, ignore_labels)
        if not is_split_into_words:
            sentence = all_outputs[0]["sentence"]
            for entity in entities:
                entity["word"] = sentence[entity["start"] : entity["end"]]
        return entities


def _whole_word_strategy(aggregation_strategy: Any) -> str:
    """The name of the strategy ``aggregation_strategy`` (a name or an ``AggregationStrategy``) asks
    for, ``"simple"`` for those that merge a word's sub-words (each ELMo position is one whole word:
    there are none to merge); a ValueError naming the strategies for any other."""
    name = str(getattr(aggregation_strategy, "value", aggregation_strategy)).lower()
    strategies = [strategy.value for strategy in AggregationStrategy]
    if name not in strategies:
        raise ValueError(
            f"aggregation_strategy {aggregation_strategy!r} is not one of {', '.join(strategies)} (an ELMo position "
            "is a whole word: first, average and max give what simple gives)"
        )
    return "simple" if name in ("first", "average", "max") else name
