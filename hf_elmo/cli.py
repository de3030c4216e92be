"""The ``elmo`` command line: one sub-command per module of ``hf_elmo.commands``."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

#: Modules under ``hf_elmo.commands``; each defines ``register(subparsers)`` that adds its
#: sub-command with ``set_defaults(run=callable(args) -> int)``.
COMMANDS = ["convert", "pretrain", "perplexity", "demo", "embed", "export"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="elmo", description="ELMo for Hugging Face and spaCy")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"hf_elmo.commands.{name}").register(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the ``elmo`` command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (ValueError, FileNotFoundError, FileExistsError) as err:
        print(f"elmo {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
