"""``python -m hf_elmo.cli ARGS`` is ``elmo ARGS`` (the command line lives in ``hf_elmo_cli``)."""

import sys

from hf_elmo_cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
