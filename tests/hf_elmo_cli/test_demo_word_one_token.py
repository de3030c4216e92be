"""`elmo demo --word` that no token can be (empty, or holding whitespace) is a usage error naming --word, as
`elmo perplexity --unk-token`'s is (``_args.one_token``), before the sentences are split or the model loads (was:
"'' is not a token of \"Let's stick ...\"" and the advice to give other sentences, which could not have held it)."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize("word", ["", " ", "hit it", "stick\t"])
def test_a_word_that_is_no_token_is_a_usage_error_naming_word(word, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--word", word, "--sentences", "he hit it", "she hit it"])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        f"elmo demo: error: argument --word: must be one token, without whitespace, got {word!r}"
    )
    assert captured.out == ""
