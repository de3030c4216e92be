"""`elmo demo` names the argument a bad value came with, before the model loads."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main as elmo_main


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_a_text_that_is_no_file_is_refused_naming_text(tmp_path, capsys, kind):
    """Was: 'the corpus file PATH ...', an argument that elmo demo does not have."""
    text = tmp_path / "text"
    if kind == "folder":
        text.mkdir()
    assert elmo_main(["demo", "--text", str(text)]) == 2
    captured = capsys.readouterr()
    reason = "no such file" if kind == "missing" else "is a folder, not a text file"
    assert captured.err.startswith(f"elmo demo: error: --text {text}")
    assert reason in captured.err and captured.err.count("\n") == 1
    assert captured.out == ""
