"""Pretraining data for the biLM: resumable batches and their collation (ahead, in workers).

A corpus (``hf_elmo.corpus``) is a UTF-8 text file with one sentence per line, tokens separated by whitespace.
Every sentence is seen as ``<S> tokens </S>``; sentences longer than ``max_sentence_tokens``
are cut into pieces. Batches hold whole sentences of similar length, up to a token budget,
each starting from the model's initial state (the way ``ElmoModel`` embeds sentences by
default). The order is a pure function of ``(seed, epoch, rank, world_size)``, so a run
resumes exactly from ``(epoch, batch index)``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch

from ..char_ids import add_sentence_markers, token_to_char_ids
from ..modeling_lm import IGNORE_INDEX
from .settings import MIN_TOKENS_PER_BATCH
from .vocab import Vocabulary

#: How an epoch's batches are made and dealt to the ranks (``SentenceBatcher``), recorded in every
#: checkpoint: a checkpoint's position (epoch, batch) stands for the batches of the order it was
#: written under. 2: the batches of the whole corpus, dealt to the ranks in turn. 1 (a checkpoint
#: without the record): each rank batched every N-th sentence of the epoch's order, and each epoch
#: was cut to the fewest batches of any rank; for one process, the batches of 2.
DATA_ORDER = 2


def same_batches(order: int, world_size: int) -> bool:
    """Whether a run of ``world_size`` processes whose checkpoint records data ``order`` takes the
    batches that ``SentenceBatcher`` deals now at each position."""
    return order == DATA_ORDER or (order == 1 and world_size == 1)


#: What ``ElmoForBidirectionalLM.forward`` takes of an ``LMBatch``: the keys of the batch as a mapping.
LM_INPUTS = ("input_ids", "lengths", "labels")


@dataclass(eq=False)
class LMBatch(Mapping[str, torch.Tensor]):
    """One batch: ``input_ids`` (B, S, W) char ids (or (B, S) word ids), ``lengths`` (B,),
    ``labels`` (B, S) vocabulary ids (``-100`` beyond each length); ``n_words`` the corpus
    tokens in it (markers excluded). A mapping of the LM's inputs (``LM_INPUTS``) too, as
    transformers' ``BatchEncoding`` is of a model's: ``lm(**batch)``. Two batches are equal
    when their ``n_words`` are and their tensors have the same shapes, devices and values."""

    input_ids: torch.Tensor
    lengths: torch.Tensor
    labels: torch.Tensor
    n_words: int

    def __getitem__(self, name: str) -> torch.Tensor:
        if name not in LM_INPUTS:
            raise KeyError(name)
        return cast(torch.Tensor, getattr(self, name))

    def __iter__(self) -> Iterator[str]:
        return iter(LM_INPUTS)

    def __len__(self) -> int:
        return len(LM_INPUTS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LMBatch):
            return NotImplemented
        pairs = [(self[name], other[name]) for name in LM_INPUTS]
        return self.n_words == other.n_words and all(a.device == b.device and torch.equal(a, b) for a, b in pairs)


class SentenceBatcher:
    """Deterministic, resumable sentence batches of a corpus, and the ones one rank trains on.

    Each epoch permutes the sentences with ``(seed, epoch)``. Pools of sentences are sorted by
    length and cut into batches whose padded size (rows x longest + 2 markers) stays within
    ``tokens_per_batch``; the batch order is then shuffled, and the batches are dealt to the
    ranks in turn (``epoch_batches``).
    """

    def __init__(
        self,
        sentences: Sequence[str],
        vocabulary: Vocabulary,
        tokens_per_batch: int = 2048,
        seed: int = 0,
        rank: int = 0,
        world_size: int = 1,
        word_inputs: bool = False,
        max_characters_per_token: int = 50,
        pool_batches: int = 50,
    ) -> None:
        if tokens_per_batch < MIN_TOKENS_PER_BATCH:
            raise ValueError(f"tokens_per_batch must be at least {MIN_TOKENS_PER_BATCH}, got {tokens_per_batch}")
        self.sentences = sentences
        self.vocabulary = vocabulary
        self.tokens_per_batch = tokens_per_batch
        self.seed = seed
        self.rank = rank
        self.world_size = world_size
        self.word_inputs = word_inputs
        self.width = max_characters_per_token
        self.pool_batches = pool_batches
        self.lengths = np.fromiter((s.count(" ") + 1 for s in sentences), dtype=np.int64, count=len(sentences))
        self._char_cache: dict[str, list[int]] = {}

    @property
    def n_words(self) -> int:
        """Corpus tokens (all ranks), markers excluded."""
        return int(self.lengths.sum())

    def words_in_epochs(self, epochs: float) -> int:
        """The corpus tokens that all ranks together train on in ``epochs`` passes (fractions
        allowed): ``n_words`` an epoch, and under DDP the words of the batches dealt again
        (``epoch_batches``), so that a budget of this many tokens ends with the last epoch."""
        words = int(epochs * self.n_words)
        if self.world_size > 1:
            whole = math.floor(epochs)
            for epoch in range(math.ceil(epochs)):
                again = sum(int(self.lengths[batch].sum()) for batch in self._dealt_again(self._corpus_batches(epoch)))
                words += again if epoch < whole else int((epochs - whole) * again)
        return words

    def epoch_batches(self, epoch: int) -> list[np.ndarray]:
        """The sentence indices of every batch of this rank in ``epoch``, in order.

        The corpus's batches are made alike on every rank and dealt in turn: rank r takes
        batches r, r + world_size, ... When their number is not a multiple of ``world_size``,
        the epoch's first batches are dealt again to the ranks that would be short (as torch's
        ``DistributedSampler`` pads), so that every rank takes as many steps and every sentence
        is seen each epoch. With one process, these are all the batches.
        """
        batches = self._corpus_batches(epoch)
        if len(batches) < self.world_size:
            raise ValueError(
                f"its sentences make {len(batches)} batch(es) of up to {self.tokens_per_batch} tokens "
                f"(--tokens-per-batch), fewer than the {self.world_size} processes: each needs one or more; "
                "train on more text, or with fewer processes"
            )
        return (batches + self._dealt_again(batches))[self.rank :: self.world_size]

    def _dealt_again(self, batches: list[np.ndarray]) -> list[np.ndarray]:
        """The first of an epoch's ``batches``, as many as it takes to make their number a
        multiple of ``world_size`` (none with one process)."""
        return batches[: -len(batches) % self.world_size]

    def _corpus_batches(self, epoch: int) -> list[np.ndarray]:
        """Every batch of the corpus in ``epoch``, in order: the sentences permuted with
        ``(seed, epoch)``, sorted by length within pools and cut to the token budget; then the
        batches shuffled."""
        rng = np.random.default_rng([self.seed, epoch])
        order = rng.permutation(len(self.sentences))
        mean_steps = float(self.lengths.mean()) + 2
        pool = max(1, int(self.pool_batches * self.tokens_per_batch / mean_steps))
        batches: list[np.ndarray] = []
        for start in range(0, len(order), pool):
            chunk = order[start : start + pool]
            chunk = chunk[np.argsort(self.lengths[chunk], kind="stable")]
            first = 0
            for i in range(len(chunk)):
                longest = int(self.lengths[chunk[i]]) + 2  # ascending: row i is the longest so far
                if (i - first + 1) * longest > self.tokens_per_batch and i > first:
                    batches.append(chunk[first:i])
                    first = i
            batches.append(chunk[first:])
        return [batches[i] for i in rng.permutation(len(batches))]

    def _char_ids(self, token: str) -> list[int]:
        ids = self._char_cache.get(token)
        if ids is None:
            ids = token_to_char_ids(token, self.width, max_token_chars=None)
            if token in self.vocabulary:
                self._char_cache[token] = ids
        return ids

    def collate(self, indices: Sequence[int] | np.ndarray) -> LMBatch:
        """Tensors for the sentences ``indices`` (markers added)."""
        return collate_sentences(
            [self.sentences[i].split() for i in indices], self.vocabulary, self.word_inputs, self._char_ids, self.width
        )


def collate_sentences(
    sentences: Sequence[Sequence[str]],
    vocabulary: Vocabulary,
    word_inputs: bool = False,
    char_ids: Callable[[str], list[int]] | None = None,
    max_characters_per_token: int = 50,
) -> LMBatch:
    """An ``LMBatch`` of tokenised sentences, each wrapped in ``<S>`` ... ``</S>`` (``add_sentence_markers``)."""
    if not sentences or any(len(s) == 0 for s in sentences):
        raise ValueError("collate_sentences needs a non-empty list of non-empty sentences")
    width = max_characters_per_token
    char_ids = char_ids or (lambda t: token_to_char_ids(t, width, max_token_chars=None))
    steps = max(len(s) for s in sentences)
    words = torch.full((len(sentences), steps), IGNORE_INDEX, dtype=torch.long)  # (B, T), the tokens only
    lengths = torch.tensor([len(s) for s in sentences], dtype=torch.long)
    if not word_inputs:
        chars = np.zeros((len(sentences), steps, width), dtype=np.int64)
    for row, sentence in enumerate(sentences):
        words[row, : len(sentence)] = torch.tensor(vocabulary.encode(sentence))
        if not word_inputs:
            chars[row, : len(sentence)] = [char_ids(t) for t in sentence]
    if word_inputs:
        inputs = add_sentence_markers(words.clamp(min=0), lengths, vocabulary.bos_id, vocabulary.eos_id)
    else:
        inputs = add_sentence_markers(torch.from_numpy(chars), lengths)
    labels = add_sentence_markers(words, lengths, vocabulary.bos_id, vocabulary.eos_id, fill=IGNORE_INDEX)
    return LMBatch(inputs, lengths + 2, labels, sum(len(s) for s in sentences))


def data_workers_for(requested: int | None, device: torch.device) -> int:
    """Processes that collate batches ahead of the training step: ``requested``, or by default 4
    on CUDA, or the CPU cores less one where fewer, at least 1 (collating 16k tokens in Python takes
    about as long as a GPU step), and 0 on CPU
    (where the step is far longer and the cores are the model's)."""
    if requested is not None:
        return requested
    return min(4, max(1, (os.cpu_count() or 2) - 1)) if device.type == "cuda" else 0


class _CollatedBatches(torch.utils.data.Dataset):
    """The listed batches of a ``SentenceBatcher`` as tensors, one ``LMBatch`` an item."""

    def __init__(self, batcher: SentenceBatcher, batches: Sequence[Any]) -> None:
        self.batcher, self.batches = batcher, batches

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int) -> LMBatch:
        return self.batcher.collate(self.batches[index])


def _as_collated(batch: Any) -> Any:  # (LMBatch) -> LMBatch, as DataLoader's collate_fn is typed for lists
    """The ``DataLoader``'s ``collate_fn``: its default would turn the batch, a ``Mapping``, into a dict."""
    return batch


def collated_batches(batcher: SentenceBatcher, batches: Sequence[Any], workers: int) -> Iterable[LMBatch]:
    """``batcher.collate`` of every batch, in order; with ``workers`` > 0 collated ahead by that
    many processes (the same batches: the order and content never depend on them)."""
    if workers == 0:
        return (batcher.collate(indices) for indices in batches)
    # batch_size None: each item is already a batch. Its own generator: the workers' seeds must not
    # be drawn from the global RNG, which dropout and the sampled softmax use (exact resume).
    return torch.utils.data.DataLoader(
        _CollatedBatches(batcher, batches),
        batch_size=None,
        collate_fn=_as_collated,
        num_workers=workers,
        prefetch_factor=4,
        generator=torch.Generator(),
    )
