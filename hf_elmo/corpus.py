"""Text corpora of one sentence per line (whitespace tokens): reading them, and the error for
files that are not such text. Read by pretraining, ``elmo perplexity`` and checked the same way
by ``elmo embed``."""

from __future__ import annotations

from pathlib import Path

from .fileio import PathLike

#: A line longer than this is not a sentence (an unsplit document, or not text at all).
MAX_LINE_CHARS = 100_000
#: How text files are decoded: UTF-8, a byte-order mark at the start of the file (as some editors
#: write) dropped rather than read into the first token.
TEXT_ENCODING = "utf-8-sig"


class CorpusError(ValueError):
    """A training or evaluation file that is not one-sentence-per-line UTF-8 text."""


def read_corpus(path: PathLike, max_sentence_tokens: int = 100, max_line_chars: int = MAX_LINE_CHARS) -> list[str]:
    """The sentences of a corpus file, each a string of space-separated tokens.

    Blank lines are skipped; a sentence longer than ``max_sentence_tokens`` tokens is cut into
    consecutive pieces. Raises ``CorpusError`` naming the file and line for binary data,
    invalid UTF-8, a line over ``max_line_chars`` characters, or a file with no tokens.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path}")
    sentences: list[str] = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if len(raw) > 4 * max_line_chars:
                raise CorpusError(
                    f"{path}:{number}: line of {len(raw):,} bytes; expected one sentence per line "
                    f"(at most {max_line_chars:,} characters): split the text into sentences first"
                )
            if b"\x00" in raw:
                raise CorpusError(f"{path}:{number}: NUL byte: this looks like binary data, not a text corpus")
            try:
                line = raw.decode(TEXT_ENCODING if number == 1 else "utf-8")
            except UnicodeDecodeError as err:
                raise CorpusError(
                    f"{path}:{number}: not valid UTF-8 (byte {raw[err.start]:#04x} at column {err.start}); "
                    "the corpus must be UTF-8 text"
                ) from None
            if len(line) > max_line_chars:
                raise CorpusError(
                    f"{path}:{number}: line of {len(line):,} characters; expected one sentence per line "
                    f"(at most {max_line_chars:,} characters): split the text into sentences first"
                )
            tokens = line.split()
            for start in range(0, len(tokens), max_sentence_tokens):
                sentences.append(" ".join(tokens[start : start + max_sentence_tokens]))
    if not sentences:
        raise CorpusError(f"{path} holds no tokens (empty file or only blank lines)")
    return sentences
