"""elmo embed's closing line counts its lines and tokens in words that fit the numbers."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main as elmo_main


@pytest.mark.parametrize(("text", "said"), [("word\n", "1 line, 1 token"), ("a b\nc\n", "2 lines, 3 tokens")])
def test_the_closing_line_says_1_line_not_1_lines(text, said, model_dir, tmp_path, capsys):
    """Was: 'wrote out.hdf5: 1 lines, 1 tokens'."""
    (tmp_path / "in.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out.hdf5"
    assert elmo_main(["embed", str(tmp_path / "in.txt"), str(out), "--model", str(model_dir), "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote {out}: {said}"
