"""Sub-commands of the ``elmo`` command line, and the argument types they share."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (e.g. ``--threads``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value
