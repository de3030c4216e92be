"""Text corpora of one sentence per line (whitespace tokens): reading their lines, and the error
for files that are not such text. ``read_lines`` is how every command splits a text file into
lines (``elmo embed``, ``elmo pretrain``, ``elmo perplexity``), a gzip-compressed file
decompressed; ``read_corpus`` reads a training or evaluation corpus with it."""

from __future__ import annotations

import codecs
import gzip
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from .fileio import PathLike, check_input_names_a_file

#: A line longer than this is not a sentence (an unsplit document, or not text at all).
MAX_LINE_CHARS = 100_000
#: How text files are decoded: UTF-8, a byte-order mark at the start of the file (as some editors
#: write) dropped rather than read into the first token.
TEXT_ENCODING = "utf-8-sig"
#: U+FEFF: at the start of a line, a byte-order mark (``cat a.txt b.txt`` of files that start with
#: one puts it there), which ``read_lines`` drops; elsewhere a zero-width no-break space, a
#: character of its token, as the tokenizer keeps it (``str.split`` and spaCy split no word at it).
BYTE_ORDER_MARK = "\ufeff"
#: The first bytes of a gzip file: ``read_lines`` reads such a file decompressed.
GZIP_MAGIC = b"\x1f\x8b"
#: The first bytes of the other compressed formats (bzip2's: its magic, block size and the start of a
#: block or of an empty stream, which no line of text starts with), with the command that decompresses
#: each: ``read_lines`` refuses such a file as compressed, saying how to decompress it, not as the binary
#: data it looks like.
_OTHER_COMPRESSIONS = {
    re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)"): ("bzip2", "bunzip2 -k"),
    re.compile(rb"\xfd7zXZ\x00"): ("xz", "unxz -k"),
    re.compile(rb"\x28\xb5\x2f\xfd"): ("zstd", "zstd -d"),
    re.compile(rb"PK\x03\x04"): ("zip", "unzip"),
}
#: Bytes that ``_refuse_other_compressions`` reads to tell them.
_COMPRESSION_MAGIC_BYTES = 10
#: What ``read_lines`` (``errors="surrogateescape"``) decodes an invalid UTF-8 byte to.
_UNDECODABLE = re.compile("[\udc80-\udcff]")
#: The byte-order marks of the other Unicode encodings, UTF-32's before UTF-16's (UTF-16 LE's is the
#: start of UTF-32 LE's): ``read_lines`` refuses a file that starts with one as text in that encoding
#: (Windows PowerShell's ``>`` writes UTF-16), not as the binary data its NUL bytes look like.
_OTHER_ENCODINGS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}


class CorpusError(ValueError):
    """A training or evaluation file that is not one-sentence-per-line UTF-8 text."""


#: A file of at least ``ONE_TOKEN_MIN_LINES`` lines holding tokens, ``ONE_TOKEN_SHARE`` of them a single one, holds
#: one token a line (CoNLL's layout, a tokenizer's output), not one sentence a line (``one_token_a_line``).
ONE_TOKEN_MIN_LINES, ONE_TOKEN_SHARE = 10, 0.9


def one_token_a_line(path: PathLike, single: int, lines: int) -> str | None:
    """What is wrong with ``path`` when ``single`` of its ``lines`` that hold tokens hold one each, as a file of
    one token a line does (``ONE_TOKEN_SHARE``), said with what to do; None when it reads as one sentence a line.
    Each of its lines read as a sentence of one word gives vectors, a model or a perplexity of no sentence."""
    if lines < ONE_TOKEN_MIN_LINES or single < ONE_TOKEN_SHARE * lines:
        return None
    return (
        f"{path}: {single:,} of {lines:,} lines hold a single token: one token a line (as CoNLL files and "
        "tokenizers write them), not one sentence a line; put each sentence's tokens on one line, separated by spaces"
    )


def read_lines(path: PathLike, max_chars: int | None = None) -> Iterator[str]:
    """The lines of a UTF-8 file as Python's text mode splits them (at ``\\n``, ``\\r\\n`` and
    ``\\r``, each ending read as ``\\n``), the byte-order marks at the start of a line dropped (the
    file's, or those that concatenated files carry into it: ``BYTE_ORDER_MARK``); an invalid byte becomes
    a lone surrogate (``errors="surrogateescape"``) for the caller to report (``undecodable_byte``).
    A gzip-compressed file (``is_gzip``, whatever its name) is decompressed as it is read; damaged
    gzip data is a ``CorpusError``, and so is a file compressed otherwise (``_refuse_other_compressions``)
    or a UTF-16 or UTF-32 file (``_refuse_other_encodings``: one with its byte-order mark, or UTF-16
    without one, from its first characters).

    With ``max_chars``, at most ``max_chars + 1`` characters of a line are read at a time, so that
    a file without line breaks is not read whole: a longer line comes as its first piece, without
    its line end, for the caller to refuse.
    """
    _refuse_other_compressions(path)
    opener = gzip.open if is_gzip(path) else open
    with opener(path, "rt", encoding=TEXT_ENCODING, errors="surrogateescape") as handle:
        try:
            _refuse_other_encodings(path, handle.read(_START_CHARS))
            handle.seek(0)
            size = -1 if max_chars is None else max_chars + 1
            line = handle.readline(size)
            at_line_start = True  # a line longer than max_chars comes in pieces: its first starts it
            while line:
                if at_line_start and line[:1] == BYTE_ORDER_MARK:
                    line = line.lstrip(BYTE_ORDER_MARK)
                at_line_start = line[-1:] == "\n"
                yield line
                line = handle.readline(size)
        except (EOFError, gzip.BadGzipFile, zlib.error) as err:  # a truncated or damaged .gz
            raise CorpusError(f"{path}: damaged gzip data ({err}); download or compress the file again") from None


def _refuse_other_compressions(path: PathLike) -> None:
    """Raise ``CorpusError`` when ``path`` starts as a bzip2, xz, zstd or zip file does
    (``_OTHER_COMPRESSIONS``): only gzip is read decompressed; say how to decompress it."""
    with open(path, "rb") as handle:
        start = handle.read(_COMPRESSION_MAGIC_BYTES)
    for magic, (kind, command) in _OTHER_COMPRESSIONS.items():
        if magic.match(start):
            raise CorpusError(
                f"{path} is {kind}-compressed, which is not read (gzip is): decompress it first, e.g. {command} {path}"
            )


#: The characters of a file's start that ``_refuse_other_encodings`` reads (``looks_like_utf16``'s sample).
_START_CHARS = 64


def _refuse_other_encodings(path: PathLike, start: str) -> None:
    """Raise ``CorpusError`` when the file whose first ``_START_CHARS`` characters ``read_lines``
    read as ``start`` is UTF-16 or UTF-32 text: it starts with that encoding's byte-order mark, or
    every other character of its start is NUL (``looks_like_utf16``: UTF-16 without one, LE where
    the NULs come second), saying how to convert it."""
    path = Path(path)
    converted = path.with_name(f"{path.stem}-utf8{path.suffix}")
    head = start[:4].encode("utf-8", "surrogateescape")
    for mark, encoding in _OTHER_ENCODINGS.items():
        if head.startswith(mark):
            raise CorpusError(
                f"{path} is {encoding} text (it starts with the byte-order mark {mark.hex(' ').upper()}), not UTF-8: "
                f"convert it, e.g. iconv -f {encoding} -t UTF-8 {path} > {converted}"
            )
    if looks_like_utf16(start):
        encoding = "UTF-16BE" if start[0] == "\x00" else "UTF-16LE"
        raise CorpusError(
            f"{path} is {encoding} text without a byte-order mark (every other character of its start is NUL), "
            f"not UTF-8: convert it, e.g. iconv -f {encoding} -t UTF-8 {path} > {converted}"
        )


def is_gzip(path: PathLike) -> bool:
    """Whether ``path`` starts with the gzip magic bytes (``read_lines`` then decompresses it)."""
    with open(path, "rb") as handle:
        return handle.read(len(GZIP_MAGIC)) == GZIP_MAGIC


def undecodable_byte(line: str) -> str | None:
    """``not valid UTF-8 (byte 0xe9 at character 4)`` for the first invalid byte of a line from
    ``read_lines``; None when it has none."""
    found = _UNDECODABLE.search(line)
    if found is None:
        return None
    return f"not valid UTF-8 (byte {ord(found.group()) - 0xDC00:#04x} at character {found.start() + 1})"


def nul_byte(line: str) -> str | None:
    """``NUL byte at character 3 (binary data, not text)`` for the first NUL of a line from
    ``read_lines``, or, when every other character of its start is NUL, what UTF-16 text without a
    byte-order mark gives (``looks_like_utf16``), saying so and how to convert it; None when it has none."""
    found = line.find("\x00")
    if found < 0:
        return None
    if looks_like_utf16(line):
        return (
            f"NUL byte at character {found + 1}, and every other character is one: UTF-16 text without a "
            "byte-order mark, not UTF-8; convert it, e.g. iconv -f UTF-16LE -t UTF-8 (UTF-16BE if that reads wrong)"
        )
    return f"NUL byte at character {found + 1} (binary data, not text)"


def not_text(line: str) -> str | None:
    """What makes a line from ``read_lines`` no text: its first NUL byte (``nul_byte``: binary data, or UTF-16 text
    without a byte-order mark), else its first invalid UTF-8 byte (``undecodable_byte``); None when it has neither.
    The one order of these checks, for every reader of text (``check_text_line``; ``elmo embed``'s scan)."""
    return nul_byte(line) or undecodable_byte(line)


def check_text_line(path: PathLike, number: int, line: str, what: str = "the corpus") -> None:
    """Raise ``CorpusError`` for line ``number`` of ``path`` (from ``read_lines``) where it is no text (``not_text``):
    ``PATH:NUMBER: PROBLEM; WHAT must be UTF-8 text``, as every reader of a text file says it (``text_lines``,
    ``read_corpus``, ``Vocabulary.from_file``)."""
    problem = not_text(line)
    if problem:
        raise CorpusError(f"{path}:{number}: {problem}; {what} must be UTF-8 text")


def looks_like_utf16(line: str, sample: int = 64) -> bool:
    """Whether the first ``sample`` characters of ``line`` (at least 4, line end aside) are NUL at every
    other position and nowhere else, as ASCII text in UTF-16 read as UTF-8 is (a line of UTF-16LE
    after the first starts with the NUL of the previous line's end: either parity)."""
    start = line.rstrip("\n")[:sample]
    if len(start) < 4:
        return False
    for nuls, others in ((start[0::2], start[1::2]), (start[1::2], start[0::2])):
        if nuls.strip("\x00") == "" and "\x00" not in others:
            return True
    return False


def text_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """The lines of ``path`` numbered from 1, as ``read_lines`` reads every text input (a gzip file decompressed, a
    UTF-16 or UTF-32 file and other compressions refused); a line with a NUL byte or an invalid UTF-8 byte is a
    ``CorpusError`` naming the file and line (``check_text_line``): for the readers of text files of their own layouts
    (spaCy's corpora, WikiText), which Python's ``open`` left to say ``'utf-8' codec can't decode byte 0xe9 in position 25``."""
    for number, line in enumerate(read_lines(path), 1):
        check_text_line(path, number, line)
        yield number, line


def check_text_file(path: PathLike, what: str) -> Path:
    """Refuse, naming it as ``what`` (``the training file``, ``--vocab``), a text input that is not a
    regular file: a name ending with a slash (``fileio.check_input_names_a_file``), a folder, a pipe or
    device (``read_lines`` reads a file's first bytes, then opens it again; ``elmo pretrain`` hashes its training
    file besides), stdin (``-``, where no file has that name: was ``-: no such file`` but for ``elmo embed``'s own
    refusal), or nothing; returns it as a ``Path``."""
    check_input_names_a_file(path, what)
    path = Path(path)
    if str(path) == "-" and not path.exists():
        raise ValueError(f"{what} cannot be stdin ('-'): it is read more than once; save the text to a file")
    if path.is_dir():
        raise IsADirectoryError(f"{what} {path} is a folder, not a text file")
    if path.exists() and not path.is_file():
        raise ValueError(
            f"{what} {path} is not a regular file (a pipe, stdin or a device?), which is read more than once; "
            "save the text to a file"
        )
    if not path.is_file():
        raise FileNotFoundError(f"{what} {path}: no such file")
    return path


def read_corpus(
    path: PathLike, max_sentence_tokens: int = 100, max_line_chars: int = MAX_LINE_CHARS, what: str | None = None
) -> list[str]:
    """The sentences of a corpus file (lines as ``read_lines`` splits them), each a string of
    space-separated tokens.

    Blank lines are skipped; a sentence longer than ``max_sentence_tokens`` tokens is cut into
    consecutive pieces. Raises ``CorpusError`` naming the file and line for binary data or
    invalid UTF-8 (``check_text_line``), a line over ``max_line_chars`` characters, a file with no tokens, or one of one token
    a line (``one_token_a_line``); a path
    that is not a regular file is refused by ``check_text_file``, naming it as ``what`` (default: the corpus file),
    and one that is no text says that ``what`` (default: the corpus) must be UTF-8 text (was: "the corpus" whatever
    the input, e.g. ``elmo demo --text``).
    """
    path = check_text_file(path, what or "the corpus file")
    sentences: list[str] = []
    single = lines = 0
    for number, line in enumerate(read_lines(path, max_line_chars), start=1):
        if what is None:
            check_text_line(path, number, line)
        else:
            check_text_line(path, number, line, what)
        if len(line.rstrip("\n")) > max_line_chars:
            raise CorpusError(
                f"{path}:{number}: line longer than {max_line_chars:,} characters; expected one sentence per "
                "line: split the text into sentences first"
            )
        tokens = line.split()
        lines += bool(tokens)
        single += len(tokens) == 1
        for start in range(0, len(tokens), max_sentence_tokens):
            sentences.append(" ".join(tokens[start : start + max_sentence_tokens]))
    if not sentences:
        raise CorpusError(f"{path} holds no tokens (empty file or only blank lines)")
    one_token = one_token_a_line(path, single, lines)
    if one_token:
        raise CorpusError(one_token)
    return sentences
