"""`elmo perplexity` refuses an argument that could change nothing, as a usage error naming it."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main as elmo_main


@pytest.mark.parametrize("token", ["", " ", "<u nk>", " <unk>"])
def test_an_unk_token_that_is_not_one_token_is_a_usage_error(token, tmp_path, capsys):
    """Was: '' ignored without a word (and a spaced one matched no token of the file, which are split by
    whitespace), so its unknown words were scored as words of the vocabulary, or as <UNK>, unannounced."""
    text = tmp_path / "in.txt"
    text.write_text("a b <unk>\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        elmo_main(["perplexity", str(text), "--unk-token", token])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        f"elmo perplexity: error: argument --unk-token: must be one token, without whitespace, got {token!r}"
    )
    assert captured.out == ""
