"""Where the shared read-only data lives: ``$ELMO_SHARED``, else ``../shared`` beside the checkout.

The one definition for the scripts (``from shared_data import shared_dir``, as they run from
``scripts/``) and the tests (``tests/conftest.py`` loads this file).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Literal, overload

from hf_elmo_cli.commands._args import error_line

REPO = Path(__file__).resolve().parent.parent


@overload
def shared_dir(required: Literal[True] = True) -> Path: ...
@overload
def shared_dir(required: bool) -> Path | None: ...
def shared_dir(required: bool = True) -> Path | None:
    """The shared folder (it holds ``fixtures/``). When absent: ``SystemExit`` naming where it was
    looked for (``SCRIPT: error: ...``, as the scripts' other failures), or ``None`` when not ``required``."""
    path = Path(os.environ.get("ELMO_SHARED", REPO.parent / "shared"))
    if (path / "fixtures").is_dir():
        return path
    if required:
        where = f"../shared (or $ELMO_SHARED) not found at {path}: the options files and data live there"
        raise SystemExit(error_line(Path(sys.argv[0]).name, where))  # argparse's default prog
    return None
