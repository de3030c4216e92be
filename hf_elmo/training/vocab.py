"""The word vocabulary of the biLM's softmax (bilm-tf's ``vocab.txt``: one word a line)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from ..corpus import check_text_file, check_text_line, read_lines
from ..fileio import write_text_atomic
from .settings import flag

BOS, EOS, UNK = "<S>", "</S>", "<UNK>"
SPECIALS = (BOS, EOS, UNK)
VOCAB_FILE = "vocab.txt"


class Vocabulary:
    """Words of the softmax, in id order; ``<S>``, ``</S>`` and ``<UNK>`` must be among them.

    Built vocabularies put the three special words first and the others by decreasing
    frequency (ties alphabetically), the order the log-uniform sampled softmax assumes.
    """

    def __init__(self, words: Iterable[str]) -> None:
        self.words: list[str] = list(words)
        self.index: dict[str, int] = {}
        for i, word in enumerate(self.words):
            if word in self.index:
                raise ValueError(f"vocabulary lists {word!r} twice (ids {self.index[word]} and {i})")
            if not word or any(c.isspace() for c in word):
                raise ValueError(f"vocabulary entry {i} ({word!r}) is empty or holds whitespace")
            self.index[word] = i
        missing = [s for s in SPECIALS if s not in self.index]
        if missing:
            raise ValueError(f"vocabulary lacks the special words {missing} (needs <S>, </S> and <UNK>)")
        if len(self.words) == len(SPECIALS):
            raise ValueError("vocabulary holds the special words <S>, </S> and <UNK> alone: list the text's words too")
        self.bos_id, self.eos_id, self.unk_id = (self.index[s] for s in SPECIALS)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def frequency_rank_correlation(self, counts: Mapping[str, int], min_words: int = 2) -> float | None:
        """Spearman's rank correlation between the ids of this vocabulary's words among ``counts`` (a
        text sample's word counts; the special words left out) and their counts, tied values sharing
        their mean rank: near -1 for a vocabulary in decreasing frequency (about -0.3 or below for one
        built from other text of the language), near 0 for one in alphabetical or random order. None
        with fewer than ``min_words`` such words, or when their counts are all the same."""
        pairs = [(self.index[word], count) for word, count in counts.items() if word in self and word not in SPECIALS]
        if len(pairs) < max(min_words, 2):
            return None
        ids, word_counts = (_average_ranks(np.array(column, dtype=np.float64)) for column in zip(*pairs))
        if word_counts.std() == 0:
            return None
        return float(np.corrcoef(ids, word_counts)[0, 1])

    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Ids of ``tokens``, unknown words as ``<UNK>``."""
        unk = self.unk_id
        return [self.index.get(t, unk) for t in tokens]

    @classmethod
    def build(cls, counts: Mapping[str, int], max_size: int | None = None, min_count: int = 1) -> Vocabulary:
        """Specials, then words with at least ``min_count`` occurrences by frequency, at most ``max_size`` in all."""
        if max_size is not None and max_size < len(SPECIALS) + 1:
            raise ValueError(f"max_size must leave room for a word beside {SPECIALS}, got {max_size}")
        ranked = sorted(
            ((w, c) for w, c in counts.items() if c >= min_count and w not in SPECIALS), key=lambda wc: (-wc[1], wc[0])
        )
        words = list(SPECIALS) + [w for w, _ in ranked]
        if len(words) == len(SPECIALS):
            top = max((c for w, c in counts.items() if w not in SPECIALS), default=0)
            option = flag("min_count")
            raise ValueError(
                f"no word of the training text occurs {min_count} times or more, as {option} {min_count} asks of each "
                f"word of the vocabulary (the most frequent occurs {top} times): give {option} {max(top, 1)} or less, "
                f"train on more text, or give {flag('vocab_file')} FILE"
            )
        return cls(words[:max_size] if max_size else words)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Vocabulary:
        """Read a ``vocab.txt``: one word a line (a second column, a count or score, is ignored; blank
        lines are skipped), the lines as ``read_lines`` splits and decodes every text input (a
        byte-order mark at a line's start dropped, a UTF-16 or UTF-32 file refused saying how to
        convert it). A line of binary data or invalid UTF-8, a count before its word
        (``_count_first``), several words (``_running_text``), or a word listed before, is a
        ``ValueError`` naming the file and line (and the line that listed it first)."""
        path = check_text_file(path, "the vocabulary file")
        words = []
        first_line: dict[str, int] = {}
        for number, line in enumerate(read_lines(path), start=1):
            check_text_line(path, number, line, "the vocabulary file")
            columns = line.split()
            if columns and _count_first(columns):
                raise ValueError(
                    f"{path}:{number}: {' '.join(columns[:2])!r} is a count before its word (as uniq -c writes it); "
                    "a line of a vocabulary file is its word, optionally followed by its count: swap the columns, "
                    "e.g. awk '{print $2, $1}'"
                )
            if _running_text(columns):
                shown = " ".join(columns[:4]) + (" ..." if len(columns) > 4 else "")
                raise ValueError(
                    f"{path}:{number}: {shown!r} is several words: the file looks like running text (a training "
                    "file?), not a vocabulary; a line of a vocabulary file is one word, optionally followed by its count"
                )
            if columns and columns[0] in first_line:
                raise ValueError(
                    f"{path}:{number}: {columns[0]!r} is listed again, first on line {first_line[columns[0]]}; a "
                    "vocabulary file lists each word once (its place in the list is its id): delete one of the two lines"
                )
            if columns:
                first_line[columns[0]] = number
                words.append(columns[0])
        try:
            return cls(words)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None

    def save(self, path: str | os.PathLike) -> Path:
        """Write one word a line (via a temporary file, renamed into place)."""
        return write_text_atomic(path, "\n".join(self.words) + "\n")


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """The ranks (0, 1, ...) of ``values`` in increasing order, tied values sharing their mean rank."""
    order = np.argsort(values, kind="stable")
    _, first, size = np.unique(values[order], return_index=True, return_counts=True)
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(first + (size - 1) / 2, size)
    return ranks


def _count_first(columns: list[str]) -> bool:
    """Whether the columns of a vocabulary line are a count, then a word (``uniq -c``'s ``  122 the``):
    a whole number, then something that is no number (a count or score after a word is one)."""
    return len(columns) == 2 and columns[0].isdigit() and not _is_number(columns[1])


def _running_text(columns: list[str]) -> bool:
    """Whether the columns of a vocabulary line are several words (a line of running text, e.g. of a
    training file given as the vocabulary), not a word and its count (or score)."""
    return len(columns) > 2 or (len(columns) == 2 and not _is_number(columns[1]))


def _is_number(text: str) -> bool:
    """Whether ``text`` reads as a number (a count or score), as ``float`` reads it."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def build_vocabulary(sentences: Iterable[str], max_size: int | None = None, min_count: int = 1) -> Vocabulary:
    """``Vocabulary.build`` over the whitespace tokens of ``sentences``."""
    counts: Counter = Counter()
    for sentence in sentences:
        counts.update(sentence.split())
    return Vocabulary.build(counts, max_size=max_size, min_count=min_count)
