"""Convert CoNLL-2003 and SST from ../shared (or your own files) to spaCy's .spacy format.

    python scripts/convert_corpora.py conll2003 ../shared/data/conll2003-en/eng.train corpus/train.spacy
    python scripts/convert_corpora.py sst ../shared/data/sst/sentence-level/stsa.binary.train corpus/train.spacy

The output's folder is created; ``project/project.yml`` runs this into ``project/corpus/``.
"""

import argparse
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_elmo.corpora import read_conll2003, read_sst

READERS = {"conll2003": read_conll2003, "sst": read_sst}


def sentence_count(text: str) -> int:
    """``--max-sentences``: an integer >= 0."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("format", choices=sorted(READERS))
    parser.add_argument("source", type=Path)
    parser.add_argument("output", type=Path, help="the .spacy file to write")
    parser.add_argument(
        "--max-sentences", type=sentence_count, default=0, help="read at most this many sentences (0: all)"
    )
    args = parser.parse_args()
    vocab = spacy.blank("en").vocab
    try:
        docs = list(READERS[args.format](args.source, vocab, args.max_sentences or None))
    except (OSError, ValueError) as error:
        parser.exit(1, f"error: {error}\n")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs).to_disk(args.output)
    print(f"{args.output}: {len(docs)} docs")


if __name__ == "__main__":
    main()
