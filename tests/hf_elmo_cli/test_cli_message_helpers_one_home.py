"""The ``elmo`` command words its usage errors with ``hf_elmo.messages`` (``quoted``, ``some_of``, ``first_line``,
``INSTALL_HF_ELMO``), read without importing ``hf_elmo`` (``_args.hf_elmo_module``), and keeps no copy of them (was:
``_args.given``, ``GIVEN_CHARS``, the "and N more" of unrecognized arguments, ``_import_error_line``'s own first line
and ``_install_hf_elmo``'s loading of messages.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import hf_elmo_cli
from hf_elmo.messages import some_of

CLI = Path(hf_elmo_cli.__file__).resolve().parent

USAGE_ERROR = """
import sys
import hf_elmo_cli
try:
    hf_elmo_cli.main(["embed", "in.txt", "out.hdf5", "--layers", "x" * 1000, "a", "b", "c", "d", "e", "f", "g"])
except SystemExit:
    pass
print("heavy imports:", sorted(m for m in ("torch", "transformers", "hf_elmo") if m in sys.modules))
"""


def test_the_command_line_keeps_no_copy_of_the_message_helpers():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in sorted(CLI.rglob("*.py")))
    copies = ["def given(", "GIVEN_CHARS", "def _install_hf_elmo(", ' more"', "splitlines()"]
    assert [copy for copy in copies if copy in sources] == []


def test_some_of_lists_with_the_separator_given():
    assert some_of(["a", "b", "c"], 2, separator=" ") == "a b and 1 more"
    assert some_of(["a", "b", "c"], 2) == "a, b and 1 more"


def test_a_usage_error_is_worded_by_hf_elmo_messages_without_importing_hf_elmo():
    result = subprocess.run([sys.executable, "-c", USAGE_ERROR], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "heavy imports: []"
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith(f"elmo embed: error: argument --layers: invalid choice: {repr('x' * 1000)[:40]}... "), error
