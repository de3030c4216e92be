"""Readers of the benchmark corpora into spaCy ``Doc`` objects (one doc per sentence).

- CoNLL-2003: 4 columns ``word POS chunk NER``, NER tags in IOB1, ``-DOCSTART-`` lines, blank
  lines between sentences. The tags are decoded by spaCy (``iob_to_biluo``); the lines are read
  here rather than by ``spacy.training.converters.conll_ner_to_docs``, which makes one doc per
  document (not per sentence), reads the whole file into memory, and misreads ``eng.testb``
  (its ``-DOCSTART- -X- -X- O`` line is not the delimiter it looks for: 3684 docs, not 3453).
- SST (sentence level): ``label sentence`` per line, already tokenised; the label becomes an
  exclusive category (``cats``) named by the label.
"""

from collections.abc import Iterator
from pathlib import Path

from spacy.tokens import Doc, Span
from spacy.training import iob_to_biluo, tags_to_entities
from spacy.vocab import Vocab

from hf_elmo.fileio import PathLike


def iob1_spans(tags: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, label) entity spans of IOB1 tags: ``I-X`` continues an entity of type X or
    starts one after ``O`` or another type; ``B-X`` starts a new one right after an X.

    The decoding is spaCy's (``iob_to_biluo``, which reads IOB1 and IOB2 alike); spaCy accepts
    any prefix silently, so the tags are checked first."""
    for i, tag in enumerate(tags):
        prefix, _, label = tag.partition("-")
        if tag != "O" and (prefix not in ("B", "I") or not label):
            raise ValueError(f"token {i}: {tag!r} is not an IOB1 tag")
    return [(start, end + 1, label) for label, start, end in tags_to_entities(iob_to_biluo(tags))]


def read_conll2003(path: PathLike, vocab: Vocab, max_sentences: int | None = None) -> Iterator[Doc]:
    """One ``Doc`` with gold ``ents`` per sentence of a CoNLL-2003 file."""
    count = 0
    for words, tags in _conll_sentences(Path(path)):
        if max_sentences is not None and count >= max_sentences:
            return
        doc = Doc(vocab, words=words)
        doc.ents = [Span(doc, start, end, label=label) for start, end, label in iob1_spans(tags)]
        count += 1
        yield doc


def _conll_sentences(path: Path) -> Iterator[tuple[list[str], list[str]]]:
    words: list[str] = []
    tags: list[str] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            fields = line.split()
            if not fields or fields[0] == "-DOCSTART-":
                if words:
                    yield words, tags
                words, tags = [], []
                continue
            if len(fields) != 4:
                raise ValueError(f"{path}:{number}: expected 4 columns (word POS chunk NER), got {len(fields)}")
            words.append(fields[0])
            tags.append(fields[3])
    if words:
        yield words, tags


def read_sst(path: PathLike, vocab: Vocab, max_sentences: int | None = None) -> Iterator[Doc]:
    """One ``Doc`` with exclusive ``cats`` per ``label sentence`` line of an SST file."""
    path = Path(path)
    lines = [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for number, fields in enumerate(lines, 1):
        if not fields[0].isdigit():
            raise ValueError(
                f"{path}: sentence {number} starts with {fields[0][:20]!r}, not an integer label: an SST file "
                "holds one 'label word word ...' line per sentence"
            )
    labels = sorted({fields[0] for fields in lines})
    for number, fields in enumerate(lines[:max_sentences], 1):
        if len(fields) < 2:
            raise ValueError(f"{path}: sentence {number} has a label and no words")
        doc = Doc(vocab, words=fields[1:])
        doc.cats = {label: float(label == fields[0]) for label in labels}
        yield doc
