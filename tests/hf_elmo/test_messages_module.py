"""``hf_elmo/messages.py``, the one home of how a refusal names what it refuses (``described``, ``some_of``, ...):
the standard library only, and copied with the code that imports it, so that a saved or exported folder's
tokenizer and model load with ``trust_remote_code=True`` without the package."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import hf_elmo
import hf_elmo.configuration_elmo
from hf_elmo.export import export_model
from tests.hf_elmo.random_inputs import clipped_random_model

MESSAGES = Path(hf_elmo.__file__).resolve().parent / "messages.py"
MOVED = ("described", "one_of", "another_model", "some_of", "first_line", "is_number")


def test_messages_imports_the_standard_library_only():
    imported = set()
    for node in ast.walk(ast.parse(MESSAGES.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"messages.py:{node.lineno}: a relative import"
            imported.add((node.module or "").split(".")[0])
    assert imported <= set(sys.stdlib_module_names), sorted(imported - set(sys.stdlib_module_names))


def test_the_message_helpers_have_one_home():
    source = Path(hf_elmo.configuration_elmo.__file__).read_text(encoding="utf-8")
    assert not [name for name in MOVED if f"\ndef {name}(" in source]


ISOLATED = """
import sys
sys.modules["hf_elmo"] = None  # importing hf_elmo now raises: only the folder's own code can run
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1], trust_remote_code=True)
assert type(tokenizer).__module__.startswith("transformers_modules"), type(tokenizer).__module__
print(tokenizer.tokenize("The cat  sat ."))
try:
    tokenizer(7)
except TypeError as error:  # a refusal worded by the folder's copy of messages.py (``described``)
    print(error)
"""


def test_an_exported_folders_tokenizer_loads_with_remote_code_alone(tmp_path):
    folder = export_model(clipped_random_model(), tmp_path / "out", "torch-export")
    assert (folder / "messages.py").read_bytes() == MESSAGES.read_bytes()
    result = subprocess.run(
        [sys.executable, "-c", ISOLATED, str(folder)], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr[-3000:]
    tokens, refusal = result.stdout.splitlines()[-2:]
    assert tokens == "['The', 'cat', 'sat', '.']"
    assert refusal.endswith("got the int 7"), refusal
