"""Sentences to arrays in memory: ``embed_sentences`` streams one array per tokenised sentence.

**Memory** does not grow with the input: sentences are read ahead by at most
``lookahead_tokens`` (``LOOKAHEAD_BATCHES`` batches by default), sorted by length into batches of
at most ``tokens_per_batch`` padded tokens (a longer sentence runs alone), and their arrays are
yielded as they come.
"""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any

import numpy as np
import torch

from ..batching import token_budget_batches
from ..char_ids import batch_to_ids, words_of
from ..cuda_graphs import GraphedElmo
from ..devices import resolve_dtype
from ..embed_options import DEFAULT_BATCH_TOKENS, LAYERS, POOLS
from ..loading import model_tokenizer
from ..messages import described, one_of
from ..modeling_elmo import ElmoModel, check_reads_char_ids, mean_pool
from ..tokenization_elmo import check_split_words

#: Sentences read ahead and sorted together, in batches of ``tokens_per_batch``.
LOOKAHEAD_BATCHES = 8


class TokenizerLimit(enum.Enum):
    """The type of ``TOKENIZER_LIMIT``, a sentinel (``None`` already means no limit)."""

    MODEL = "the model's tokenizer's max_token_chars"


#: ``max_token_chars``'s default in ``embed_sentences`` and ``embed_file``: the limit of the tokenizer
#: saved with the model (``model_token_limit``), which ``elmo embed`` takes too without ``--max-token-chars``.
TOKENIZER_LIMIT = TokenizerLimit.MODEL


def model_token_limit(model: ElmoModel, max_token_chars: int | None | TokenizerLimit) -> int | None:
    """``max_token_chars`` as given, or for ``TOKENIZER_LIMIT`` that of ``model``'s tokenizer
    (``loading.model_tokenizer``: the one saved with it; 100, ``DEFAULT_MAX_TOKEN_CHARS``, for a model
    built in memory or saved without one)."""
    if max_token_chars is TOKENIZER_LIMIT:
        return model_tokenizer(model).max_token_chars
    return max_token_chars


def embed_sentences(
    model: ElmoModel,
    sentences: Iterable[Sequence[str]],
    *,
    layers: str = "all",
    tokens_per_batch: int = DEFAULT_BATCH_TOKENS,
    device: str | torch.device | None = None,
    dtype: str | torch.dtype | None = None,
    max_token_chars: int | None | TokenizerLimit = TOKENIZER_LIMIT,
    lookahead_tokens: int | None = None,
    pool: str | None = None,
    cuda_graphs: bool = False,
    batch_tokens: int | None = None,
    batch_size: int | None = None,
) -> Iterator[np.ndarray]:
    """Embed tokenised sentences; yields one float32 array per sentence, in input order.

    Every sentence starts from the model's initial state, so its vectors do not depend on the
    batching. Sentences are read ahead by about ``lookahead_tokens`` tokens (default
    ``LOOKAHEAD_BATCHES * tokens_per_batch``), sorted by length and run in batches of at most
    ``tokens_per_batch`` padded tokens (a longer sentence runs alone).

    Args:
        model: the biLM; put in eval mode, and moved to ``device`` / cast to ``dtype`` (a
            ``torch.dtype`` or its name, ``"bfloat16"``: ``devices.resolve_dtype``; in place, like
            ``model.to``) when they are given. Arrays are float32 whatever ``dtype``.
        sentences: token lists (each any iterable of words; a str is refused); an empty one is an error.
        layers: ``"all"`` (L+1, T, 2P), ``"top"`` (T, 2P) the last layer, or ``"average"``
            (T, 2P) the mean over layers.
        cuda_graphs: run the biLM through ``cuda_graphs.GraphedElmo`` (one CUDA graph per
            batch/length bucket on a GPU; the same vectors within 1e-5).
        max_token_chars: longer tokens are an error (``None``: truncated as the original does); by
            default the limit of the model's saved tokenizer, as ``elmo embed`` (``model_token_limit``).
        pool: ``"mean"``: one vector per sentence, the mean over its tokens (``mean_pool``):
            (L+1, 2P) for ``layers="all"``, (2P,) for ``"top"`` and ``"average"``.
        batch_tokens: the old name of ``tokens_per_batch`` (``renamed_tokens_per_batch``).
        batch_size: AllenNLP's ``ElmoEmbedder.embed_sentences(sentences, batch_size)``, sentences a
            batch: refused, naming ``tokens_per_batch``.
    """
    refuse_batch_size(batch_size, "embed_sentences")
    check_reads_char_ids(model, "embed_sentences")
    tokens_per_batch = renamed_tokens_per_batch(tokens_per_batch, batch_tokens, "embed_sentences")
    check_options(layers, pool, tokens_per_batch)
    if device is not None or dtype is not None:
        model.to(device=device, dtype=None if dtype is None else resolve_dtype(dtype))  # type: ignore[call-arg]  # typeshed's functools.wraps leaves PreTrainedModel.to unbound
    model.eval()
    forward = GraphedElmo(model) if cuda_graphs else partial(model, stateful=False)
    lookahead = lookahead_tokens or LOOKAHEAD_BATCHES * tokens_per_batch
    limit = model_token_limit(model, max_token_chars)
    return _embed_stream(model, forward, iter(sentences), layers, tokens_per_batch, limit, lookahead, pool)


#: input_ids (B, T, W) on the model's device -> the model's stateless ``ElmoModelOutput``.
Forward = Callable[..., Any]


def _embed_stream(
    model: ElmoModel,
    forward: Forward,
    sentences: Iterator[Sequence[str]],
    layers: str,
    tokens_per_batch: int,
    max_token_chars: int | None,
    lookahead: int,
    pool: str | None,
) -> Iterator[np.ndarray]:
    done = 0
    while True:
        chunk: list[Sequence[str]] = []
        tokens = 0
        for sentence in sentences:
            words = words_of(sentence, f"sentence {done + len(chunk)}")
            if len(words) == 0:
                raise ValueError(f"sentence {done + len(chunk)} has no tokens to embed")
            check_split_words(words, f"sentence {done + len(chunk)}")
            chunk.append(words)
            tokens += len(words)
            if tokens >= lookahead:
                break
        if not chunk:
            return
        yield from _embed_chunk(model, forward, chunk, layers, tokens_per_batch, max_token_chars, pool)
        done += len(chunk)


def _embed_chunk(
    model: ElmoModel,
    forward: Forward,
    chunk: list[Sequence[str]],
    layers: str,
    tokens_per_batch: int,
    max_token_chars: int | None,
    pool: str | None,
) -> list[np.ndarray]:
    """The arrays of ``chunk``'s sentences, in order, computed in length-sorted batches."""
    out: dict[int, np.ndarray] = {}
    for batch in token_budget_batches([len(s) for s in chunk], tokens_per_batch):
        rows = [chunk[i] for i in batch]
        ids = batch_to_ids(rows, model.config.max_characters_per_token, max_token_chars)
        with torch.inference_mode():  # the model reads the attention mask off the ids' padding
            output = forward(input_ids=ids.to(model.device))
            wanted = output.hidden_states[-1:] if layers == "top" else output.hidden_states
            if pool == "mean":
                wanted = [mean_pool(h, output.attention_mask) for h in wanted]  # (B, 2P) each
            vectors = _host_vectors(wanted, layers)  # (L+1, B, [T,] 2P) for "all", else (B, [T,] 2P)
        for row, index in enumerate(batch):
            vector = vectors[:, row] if layers == "all" else vectors[row]
            # a contiguous copy of its own: (L+1 or none, [T,] 2P)
            out[index] = np.array(vector if pool else vector[..., : len(chunk[index]), :])
    return [out[i] for i in range(len(chunk))]


def _host_vectors(layers_out: Sequence[torch.Tensor], layers: str) -> np.ndarray:
    """What ``layers`` keeps of a batch's layers (each (B, [T,] 2P), on the model's device), as a
    float32 array on the host, copied off the device at once: the layers stacked for ``"all"``, the
    one for ``"top"``, their mean for ``"average"``. The mean is numpy's ``mean(axis=0)`` to the
    bit (a sum from zero in layer order, then a division) with the sum taken on the device, which
    copies a third of the bytes."""
    if layers == "all":
        return torch.stack([h.float() for h in layers_out]).cpu().numpy()
    if layers == "top":
        return layers_out[-1].float().cpu().numpy()
    total = torch.zeros_like(layers_out[0], dtype=torch.float32)  # from zero: -0.0 in every layer sums to 0.0
    for hidden in layers_out:
        total += hidden.float()
    summed = total.cpu().numpy()
    return np.true_divide(summed, np.intp(len(layers_out)), out=summed, casting="unsafe")  # as numpy's mean divides


def check_options(layers: str, pool: str | None, tokens_per_batch: int) -> None:
    """The options that ``embed_sentences`` and ``embed_file`` share: one error each, naming it."""
    if not one_of(layers, LAYERS):
        raise ValueError(f"layers must be one of {LAYERS}, got {described(layers)}")
    if not one_of(pool, POOLS):
        raise ValueError(f"pool must be one of {POOLS}, got {described(pool)}")
    if tokens_per_batch < 1:
        raise ValueError(f"tokens_per_batch must be at least 1, got {tokens_per_batch}")


def refuse_batch_size(batch_size: int | None, function: str) -> None:
    """Refuse AllenNLP's ``batch_size`` (``ElmoEmbedder.embed_sentences`` and ``embed_file``: sentences a
    batch) given to ``function`` (``embed_sentences``, ``embed_file``), naming ``tokens_per_batch``."""
    if batch_size is not None:
        raise TypeError(
            f"{function}() takes no batch_size (ElmoEmbedder's, sentences a batch): it batches by padded tokens, "
            f"tokens_per_batch=N (default {DEFAULT_BATCH_TOKENS}), and the batching does not change the vectors"
        )


def renamed_tokens_per_batch(tokens_per_batch: int, batch_tokens: int | None, function: str) -> int:
    """The batch size in padded tokens that ``function`` (``embed_sentences``, ``embed_file``) was given:
    ``tokens_per_batch``, or ``batch_tokens``, its name before it took the one of ``elmo embed
    --tokens-per-batch``, ``elmo pretrain``'s and ``perplexity``'s, with a ``FutureWarning``. Both
    at once (``tokens_per_batch`` not at its default) is a ``TypeError``."""
    if batch_tokens is None:
        return tokens_per_batch
    if tokens_per_batch != DEFAULT_BATCH_TOKENS:
        raise TypeError(
            f"{function}() got tokens_per_batch and batch_tokens, its old name: give tokens_per_batch alone"
        )
    warnings.warn(
        f"{function}(batch_tokens=...) is now {function}(tokens_per_batch=...), the name elmo embed, elmo pretrain "
        "and elmo perplexity give it (--tokens-per-batch); batch_tokens will be removed",
        FutureWarning,
        stacklevel=3,
    )
    return batch_tokens
