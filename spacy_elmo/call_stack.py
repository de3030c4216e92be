"""What a running spaCy function holds that it hands to no component: its local variables, read
from its frame up the call stack. The home of that one technique, for the few settings spaCy's
commands keep to themselves (``init_nlp``'s ``[training]`` block, ``debug_model``'s ``nlp``) and
for whether one of them runs (``spacy benchmark speed``'s ``annotate``)."""

import sys
from types import FrameType
from typing import Any


def running_locals(module: str, function: str) -> dict[str, Any] | None:
    """The local variables of the innermost call of ``module.function`` (a spaCy function, e.g.
    ``"spacy.training.initialize"``, ``"init_nlp"``) that is running now, up the call stack of the
    caller. ``None``: it is not running, or this spaCy has no such function (its module is not
    imported, or the function was renamed or removed), so a change in spaCy turns a check off rather
    than failing every prediction."""
    code = getattr(getattr(sys.modules.get(module), function, None), "__code__", None)
    if code is None:
        return None
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            return frame.f_locals
        frame = frame.f_back
    return None
