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
import os
from collections.abc import Iterator
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    tmp = args.out.with_name(args.out.name + ".tmp")
    count = 0
    with open(args.source, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8") as out:
        for tokens in sentences(src):
            out.write(" ".join(tokens) + "\n")
            count += len(tokens)
    os.replace(tmp, args.out)
    print(f"wrote {args.out}: {count:,} tokens")


if __name__ == "__main__":
    main()
