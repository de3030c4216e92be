"""Readers of the benchmark corpora into spaCy ``Doc`` objects (one doc per sentence).

- CoNLL-2003: 4 columns ``word POS chunk NER``, NER tags in IOB1, ``-DOCSTART-`` lines, blank
  lines between sentences. The tags are decoded by spaCy (``iob_to_biluo``); the lines are read
  here rather than by ``spacy.training.converters.conll_ner_to_docs``, which makes one doc per
  document (not per sentence), reads the whole file into memory, and misreads ``eng.testb``
  (its ``-DOCSTART- -X- -X- O`` line is not the delimiter it looks for: 3684 docs, not 3453).
- SST (sentence level): ``label sentence`` per line, already tokenised; the label becomes an
  exclusive category (``cats``) named by the label.
- SST (trees): the treebank's PTB-style trees, one per line with a sentiment label on every
  node, in the original casing (the sentence-level files are lower-cased): sentences, or every
  distinct phrase, with SST-5's labels or SST-2's (neutral dropped).

Each file is read as every text input of this package is (``hf_elmo.corpus.text_lines``): UTF-8, a
byte-order mark at a line's start dropped (read into the first line, it made a CoNLL file's ``-DOCSTART-`` a word),
a gzip-compressed file decompressed; a UTF-16 or UTF-32 file, another compression, an invalid UTF-8 byte or a NUL
byte is a ``CorpusError`` naming the file (and line) and what to do.
"""

from collections.abc import Iterator
from functools import partial
from pathlib import Path

from spacy.tokens import Doc, Span
from spacy.training import iob_to_biluo, tags_to_entities
from spacy.vocab import Vocab

from hf_elmo.corpus import text_lines
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
    for number, line in text_lines(path):
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
    lines = [line.split() for _, line in text_lines(path) if line.strip()]
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


#: PTB escapes in the SST trees, and the words they stand for in running text.
_PTB_WORDS = {"-LRB-": "(", "-RRB-": ")", "``": '"', "''": '"'}


def read_sst_trees(
    path: PathLike,
    vocab: Vocab,
    max_sentences: int | None = None,
    *,
    binary: bool,
    phrases: bool = False,
) -> Iterator[Doc]:
    """Docs with exclusive ``cats`` from an SST file of PTB-style sentiment trees (one per line,
    a label 0-4 on every node), in the original casing.

    ``binary``: SST-2's labels, ``"0"`` for 0-1 and ``"1"`` for 3-4, neutral (2) dropped; else
    SST-5's 0-4. ``phrases``: one doc per distinct phrase (every node's words, the first tree's
    label where a phrase recurs) of the first ``max_sentences`` trees, as GLUE's SST-2 training
    set is built; else one doc per tree (the sentence), ``max_sentences`` of them at most. PTB
    escapes become the characters they stand for: -LRB- (, -RRB- ), \\/ /, \\* *, and the
    opening and closing quotes `` and '' a plain double quote."""
    path = Path(path)
    labels = ["0", "1"] if binary else ["0", "1", "2", "3", "4"]
    seen: set[tuple[str, ...]] = set()  # the phrases given so far
    docs = 0  # docs given so far (what max_sentences caps without phrases)
    for number, line in text_lines(path):
        if max_sentences is not None and (number > max_sentences if phrases else docs >= max_sentences):
            return
        if not line.strip():
            continue
        try:
            nodes = _tree_nodes(line)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {error}: expected one '(label (label word) ...)' tree") from None
        for words, label in nodes if phrases else nodes[-1:]:
            if binary and label == 2:
                continue
            if phrases:
                if tuple(words) in seen:
                    continue
                seen.add(tuple(words))
            docs += 1
            name = str(int(label > 2)) if binary else str(label)
            doc = Doc(vocab, words=words)
            doc.cats = {other: float(other == name) for other in labels}
            yield doc


def _tree_nodes(line: str) -> list[tuple[list[str], int]]:
    """(words, label) of every node of one tree, children before their parent (the root last)."""
    tokens = line.replace("(", " ( ").replace(")", " ) ").split()
    nodes: list[tuple[list[str], int]] = []
    stack: list[tuple[list[str], int]] = []
    for i, token in enumerate(tokens):
        if token == "(":
            label = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not (len(label) == 1 and label in "01234"):
                raise ValueError(f"node label {label!r} is not 0-4")
            stack.append(([], int(label)))
        elif token == ")":
            if not stack:
                raise ValueError("unbalanced ')'")
            node = stack.pop()
            if not node[0]:
                raise ValueError("a node with no words")
            nodes.append(node)
            if stack:
                stack[-1][0].extend(node[0])
            elif i != len(tokens) - 1:
                raise ValueError("text after the tree's end")
        elif tokens[i - 1] != "(":  # a word (the token after "(" is the node's label)
            if not stack:
                raise ValueError(f"word {token!r} outside the tree")
            word = _PTB_WORDS.get(token, token).replace("\\/", "/").replace("\\*", "*")
            stack[-1][0].append(word)
    if stack or not nodes:
        raise ValueError("unbalanced '('" if stack else "no tree")
    return nodes


#: SST-2 from the trees: its sentences (those of the sentence-level files, cased), and every
#: distinct non-neutral phrase of the trees (GLUE's way of building SST-2's training set).
read_sst2_trees = partial(read_sst_trees, binary=True)
read_sst2_phrases = partial(read_sst_trees, binary=True, phrases=True)
