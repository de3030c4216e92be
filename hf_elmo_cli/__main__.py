"""``python -m hf_elmo_cli ARGS`` (e.g. under ``torchrun``) is ``elmo ARGS``."""

import sys

from hf_elmo_cli import main

sys.exit(main())
