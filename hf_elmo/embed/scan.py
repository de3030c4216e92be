"""The input file, read before anything is computed: ``scan_input`` checks every line and counts
the tokens of a shard's chunks; ``unsplit_tokens`` tells raw text from text split as the model's
corpus was.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..char_ids import DEFAULT_MAX_TOKEN_CHARS, token_to_char_ids
from ..configuration_elmo import WHITESPACE
from ..corpus import MAX_LINE_CHARS, CorpusError, not_text, one_token_a_line, read_lines
from ..fileio import PathLike
from ..word_splitting import split_words
from .shards import DEFAULT_CHUNK_LINES, Shard

#: Bad lines quoted in a validation error (all of them are counted).
REPORTED_BAD_LINES = 5


@dataclass
class InputScan:
    """What the validation pass learnt: ``num_lines`` of the file, ``shard_lines`` of them in
    the shard, and the tokens of each chunk of the shard's lines (``chunk_tokens``)."""

    num_lines: int
    shard_lines: int
    chunk_tokens: list[int]


def scan_input(
    path: PathLike,
    shard: Shard = Shard(),
    chunk_lines: int = DEFAULT_CHUNK_LINES,
    max_token_chars: int | None = DEFAULT_MAX_TOKEN_CHARS,
    max_characters_per_token: int = 50,
) -> InputScan:
    """Check every line of ``path`` (not blank, valid UTF-8 without NUL bytes, tokens that the
    char ids accept).

    Raises ``CorpusError`` naming the file, the first bad lines (numbered from 1), their
    problems and how many there are, or saying that the file has no lines, or, when its blank lines
    part lines of one token each, that it holds one token a line (``one_token_a_line``; without blank
    lines it is a list of words, each embedded alone).
    """
    bad: list[str] = []
    n_bad = 0
    chunk_tokens: list[int] = []
    num_lines = shard_lines = single = blank = 0
    for index, line in enumerate(read_lines(path)):
        num_lines += 1
        tokens = line.split()
        single += len(tokens) == 1
        blank += not tokens
        problem = _line_problem(line, tokens, max_token_chars, max_characters_per_token)
        if problem is not None:
            n_bad += 1
            if len(bad) < REPORTED_BAD_LINES:
                bad.append(f"line {index + 1}: {problem}")
        if shard.owns(index):
            shard_lines += 1
            chunk = shard.chunk_of(index, chunk_lines)
            if chunk == len(chunk_tokens):
                chunk_tokens.append(0)
            chunk_tokens[chunk] += len(tokens)
    if num_lines == 0:
        raise CorpusError(f"{path} is empty: there are no lines to embed; nothing was written")
    if n_bad:
        # blank lines between one-token lines: not lines to remove, but sentences to put on one line each
        one_token = one_token_a_line(path, single, num_lines - blank) if blank else None
        if one_token:
            raise CorpusError(f"{one_token}; nothing was written")
        more = f"; {n_bad - len(bad):,} more" if n_bad > len(bad) else ""
        raise CorpusError(
            f"{path}: {n_bad:,} of {num_lines:,} lines are not a sentence of whitespace-separated tokens "
            f"in UTF-8 ({'; '.join(bad)}{more}); nothing was written: fix or remove them (each line is embedded as "
            "one sentence, its dataset named by its index) and run again"
        )
    return InputScan(num_lines, shard_lines, chunk_tokens)


#: Lines of the input that ``unsplit_tokens`` reads, and the most characters.
SPLIT_SAMPLE_LINES, SPLIT_SAMPLE_CHARS = 1000, 1_000_000
#: The share of an input's tokens with punctuation or a clitic attached (``unsplit_tokens``)
#: above which the input reads as raw text: on the first 1000 lines, 13% for raw Wikinews prose,
#: at most 1.6% for text split by other rules (CoNLL-2003, PTB, SST, WikiText-2).
UNSPLIT_SHARE = 0.05
#: What the model's word splitting cuts off a raw-text token: closing and opening punctuation.
_CLOSING, _OPENING = set(",.!?;:)\"'\u201d\u2019"), set("(\"'\u201c\u2018")


@dataclass
class UnsplitTokens:
    """Of the tokens of an input's first lines, how many carry punctuation or a clitic that the
    model's word splitting cuts off (``unsplit``, of ``tokens``), and the first of them with
    its words (``example``)."""

    tokens: int
    unsplit: int
    example: tuple[str, list[str]] | None

    @property
    def share(self) -> float:
        return self.unsplit / self.tokens if self.tokens else 0.0


def unsplit_tokens(path: PathLike, pre_tokenizer: str, sample_lines: int = SPLIT_SAMPLE_LINES) -> UnsplitTokens:
    """How many tokens of ``path`` (its first ``sample_lines`` lines, at most ``SPLIT_SAMPLE_CHARS``
    characters) the model's own word splitting, ``pre_tokenizer`` (e.g. ``"spacy:en"``), cuts
    punctuation or a clitic off (``"world!"``, ``"(see"``, ``"can't"``): where that is much
    (``UNSPLIT_SHARE``), the input is raw text, not text split as the model's corpus was, and the
    model's vectors for it are worse. Other splits (``"e-mail"``, ``"<unk>"``) are how other
    corpora differ, and do not count. Lines that ``scan_input`` refuses are skipped, and so are lines
    over ``MAX_LINE_CHARS`` characters (not split to sample them), each counting as one line."""
    found = UnsplitTokens(0, 0, None)
    if pre_tokenizer == WHITESPACE:
        return found
    read = lines = 0
    at_line_start = True  # read_lines gives a line over MAX_LINE_CHARS in pieces, the first without its end
    for line in read_lines(path, MAX_LINE_CHARS):
        rest_of_a_line, at_line_start = not at_line_start, line.endswith("\n")
        read += len(line)
        if read > SPLIT_SAMPLE_CHARS:
            break
        if rest_of_a_line:  # of a line skipped with its first piece, which is too long
            continue
        if lines == sample_lines:
            break
        lines += 1
        tokens = line.split()
        if not tokens or len(line.rstrip("\n")) > MAX_LINE_CHARS or not_text(line):
            continue
        found.tokens += len(tokens)
        kept = set(split_words(" ".join(tokens), pre_tokenizer)[0])
        for token in tokens:
            words = [token] if token in kept else split_words(token, pre_tokenizer)[0]
            if len(words) > 1 and (words[0] in _OPENING or words[-1] in _CLOSING or words[-1][0] in "'\u2019"):
                found.unsplit += 1
                found.example = found.example or (token, words)
    return found


def _line_problem(
    line: str, tokens: list[str], max_token_chars: int | None, max_characters_per_token: int
) -> str | None:
    problem = not_text(line)
    if problem:
        return problem
    if not tokens:
        return "blank line"
    try:  # strict decoding leaves length as the only per-token problem: check the longest
        token_to_char_ids(max(tokens, key=len), max_characters_per_token, max_token_chars)
    except ValueError as err:
        return str(err)
    return None
