"""A refusal of a command's arguments that needs no model is said before the command imports hf_elmo (torch and
transformers: seconds), and worded by ``hf_elmo.messages`` read without it (was: ``elmo export OUT`` without a
model, ``elmo perplexity`` without FILE or with the model twice imported torch first)."""

from __future__ import annotations

import subprocess
import sys

import pytest

ARGUMENT_ERROR = """
import sys
import hf_elmo_cli
print("exit:", hf_elmo_cli.main(sys.argv[1:]))
print("heavy imports:", sorted(m for m in ("torch", "transformers", "hf_elmo") if m in sys.modules))
"""


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["export", "served"],
            "elmo export: error: give the model to export: elmo export MODEL OUTPUT_DIR "
            "(or elmo export OUTPUT_DIR --model MODEL)",
        ),
        (
            ["export", "my-elmo", "served", "--model", "other"],
            "elmo export: error: the model is given twice, as the argument my-elmo and as --model other: give it once",
        ),
        (["perplexity"], "elmo perplexity: error: give the text FILE to score (elmo perplexity FILE [--model MODEL])"),
        (
            ["perplexity", "my-elmo", "test.txt", "--model", "other"],
            "elmo perplexity: error: the model is given twice, as the argument my-elmo and as --model other: "
            "give it once",
        ),
    ],
)
def test_an_argument_error_is_said_without_importing_torch(argv, said, tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", ARGUMENT_ERROR, *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.stdout.splitlines() == ["exit: 2", "heavy imports: []"], result.stderr
    assert result.stderr == f"{said}\n"
