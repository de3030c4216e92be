"""Where the shared read-only data lives: ``$ELMO_SHARED``, else ``../shared`` beside the checkout.

The one definition for the scripts (``from shared_data import shared_dir``, as they run from
``scripts/``) and the tests (``tests/conftest.py`` loads this file).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def shared_dir(required: bool = True) -> Path | None:
    """The shared folder (it holds ``fixtures/``). When absent: ``SystemExit`` naming where it was
    looked for, or ``None`` when not ``required``."""
    path = Path(os.environ.get("ELMO_SHARED", REPO.parent / "shared"))
    if (path / "fixtures").is_dir():
        return path
    if required:
        raise SystemExit(f"../shared (or $ELMO_SHARED) not found at {path}: the options files and data live there")
    return None
