"""WikiText (tokenised, ``wiki.*.tokens``) as one sentence per line for ``elmo perplexity``.

Heading lines (`` = Title = ``) and blank lines are dropped; WikiText's escaped in-word marks
``@-@``, ``@,@``, ``@.@`` become ``-``, ``,``, ``.`` (separate tokens, as spaCy's English
tokenizer splits hyphens); ``<unk>`` becomes ``<UNK>``; paragraphs are split into sentences
after ``.``, ``!`` or ``?`` followed by a capitalised token. Only evaluate on valid/test:
never train on them.

    python scripts/wikitext_sentences.py ../shared/data/wikitext-2/wiki.test.tokens /tmp/wt2-test.txt
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path

from hf_elmo.corpus import CorpusError, text_lines
from hf_elmo.fileio import (
    atomic_file,
    check_locked_output,
    folder_for_the_run,
    sole_writer,
)
from hf_elmo_cli.commands._args import SuggestingParser, exit_with_error, file_path, input_file

MAP = {"@-@": "-", "@,@": ",", "@.@": ".", "<unk>": "<UNK>"}


def sentences(lines: Iterator[str]) -> Iterator[list[str]]:
    for line in lines:
        stripped = line.strip()
        if not stripped or (stripped.startswith("=") and stripped.endswith("=")):
            continue
        tokens = [MAP.get(t, t) for t in stripped.split()]
        start = 0
        for i, token in enumerate(tokens[:-1]):
            if token in {".", "!", "?"} and tokens[i + 1][:1].isupper():
                yield tokens[start : i + 1]
                start = i + 1
        if start < len(tokens):
            yield tokens[start:]


def main(argv: Sequence[str] | None = None) -> None:
    """The command; ``argv`` (default: ``sys.argv[1:]``) as on its command line. The output is written
    aside and renamed into place under its lock (``sole_writer``), in its folder, made if missing
    (``folder_for_the_run``): a failed or interrupted run leaves an earlier output as it was and no folder it
    made, and no file of the user's is written over (the input, a folder, a link). The input is read as every text
    input is (``hf_elmo.corpus.text_lines``); one without a sentence writes nothing."""
    parser = SuggestingParser(
        prog=Path(__file__).name, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", type=input_file("the input"))
    parser.add_argument("out", type=file_path("text file", "wiki.test.txt"))
    args = parser.parse_args(argv)
    count = 0
    try:
        check_locked_output(args.out, [args.source])
        with folder_for_the_run(args.out.parent):
            with sole_writer(args.out), atomic_file(args.out) as tmp, open(tmp, "w", encoding="utf-8") as out:
                for tokens in sentences(line for _, line in text_lines(args.source)):
                    out.write(" ".join(tokens) + "\n")
                    count += len(tokens)
                if not count:  # elmo perplexity would refuse the empty output, far from here
                    raise CorpusError(f"{args.source} holds no sentences (an empty file?); nothing was written")
    # a missing input, one that is no UTF-8 text, an unwritable or full disk, another run
    except (OSError, CorpusError) as error:
        exit_with_error(parser, error)
    print(f"wrote {args.out}: {count:,} tokens")


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
