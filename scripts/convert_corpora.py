"""Convert CoNLL-2003 and SST from ../shared (or your own files) to spaCy's .spacy format.

    python scripts/convert_corpora.py conll2003 ../shared/data/conll2003-en/eng.train corpus/train.spacy
    python scripts/convert_corpora.py sst ../shared/data/sst/sentence-level/stsa.binary.train corpus/train.spacy
    python scripts/convert_corpora.py sst2-phrases ../shared/data/sst/trees/train.txt corpus/train.spacy

``sst`` reads the sentence-level files (``label sentence``, lower-cased); ``sst2-trees`` and
``sst2-phrases`` read the treebank's PTB-style trees in their original casing: SST-2's sentences
(neutral ones dropped), or every distinct non-neutral phrase of the trees (GLUE's way of building
SST-2's training set; ``--max-sentences`` then counts trees).

The input is read as every text input of hf_elmo is (a gzip file decompressed; UTF-16, invalid UTF-8 and NUL
bytes refused in one line naming the file and line); one that holds no sentence is refused, writing nothing.
The output's folder is created (and removed again, empty, when the run fails) and the file written
aside, then renamed into place (a failed run leaves an earlier output as it was); the input itself is
never an output. A run holds the
output's lock (``OUTPUT.lock``: a second run on it is refused) and removes the temporary files
that killed runs left beside it.
``project/project.yml`` runs this into ``project/corpus/``.
"""

import argparse
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import spacy
from spacy.tokens import Doc, DocBin

from hf_elmo.fileio import (
    atomic_file,
    check_locked_output,
    folder_for_the_run,
    sole_writer,
)
from hf_elmo_cli.commands._args import SuggestingParser, exit_with_error, file_path, input_file, integer_at_least
from spacy_elmo.corpora import read_conll2003, read_sst, read_sst2_phrases, read_sst2_trees

READERS: dict[str, Callable[..., Iterator[Doc]]] = {
    "conll2003": read_conll2003,
    "sst": read_sst,
    "sst2-trees": read_sst2_trees,
    "sst2-phrases": read_sst2_phrases,
}


def main(argv: Sequence[str] | None = None) -> None:
    """The command; ``argv`` (default: ``sys.argv[1:]``) as on its command line."""
    parser = SuggestingParser(
        prog=Path(__file__).name, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("format", choices=sorted(READERS))
    parser.add_argument("source", type=input_file("the input"))
    parser.add_argument("output", type=file_path(".spacy file", "train.spacy"), help="the .spacy file to write")
    parser.add_argument(
        "--max-sentences", type=integer_at_least(0), default=0, help="read at most this many sentences (0: all)"
    )
    args = parser.parse_args(argv)
    try:  # before the corpus is read
        check_locked_output(args.output, [args.source])
    except OSError as error:
        exit_with_error(parser, error)
    vocab = spacy.blank("en").vocab
    try:
        docs = list(READERS[args.format](args.source, vocab, args.max_sentences or None))
    except (OSError, ValueError) as error:
        exit_with_error(parser, error)
    if not docs:  # spacy train would read an empty corpus, and fail far from here
        exit_with_error(parser, f"{args.source} holds no {args.format} sentences (an empty file?); nothing was written")
    try:
        with folder_for_the_run(args.output.parent), sole_writer(args.output), atomic_file(args.output) as tmp:
            DocBin(docs=docs).to_disk(tmp)
    except OSError as error:  # another run writes it (OutputBusyError), a full disk
        exit_with_error(parser, error)
    print(f"{args.output}: {len(docs)} docs")


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
