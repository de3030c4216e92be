"""What a running spaCy function holds that it hands to no component: its local variables, read
from its frame up the call stack. The home of that one technique, for the few settings spaCy's
commands keep to themselves (``init_nlp``'s ``[training]`` block, ``debug_model``'s ``nlp``) and
for whether one of them runs (``spacy benchmark speed``'s ``annotate``)."""

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def running_locals(function: Callable[..., Any]) -> dict[str, Any] | None:
    """The local variables of the innermost call of ``function`` that is running now, up the call
    stack of the caller (``None``: ``function`` is not running)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code is function.__code__:
            return frame.f_locals
        frame = frame.f_back
    return None
