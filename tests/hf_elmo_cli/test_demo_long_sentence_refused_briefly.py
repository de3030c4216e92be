"""`elmo demo`'s refusal of a --word that a sentence lacks quotes the word and the sentence cut short and lists a
few of its tokens (was: the whole sentence and every token: a pasted paragraph gave a line of kilobytes)."""

from __future__ import annotations

import pytest

import hf_elmo.loading
from hf_elmo.cli import main as elmo_main
from hf_elmo.messages import quoted
from hf_elmo_cli.commands.demo import SHOWN_TOKENS


@pytest.fixture(autouse=True)
def no_model(monkeypatch):
    def loaded(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(hf_elmo.loading, "load_bilm", loaded)


def test_a_long_sentence_is_quoted_cut_short_with_a_few_of_its_tokens(capsys):
    paragraph = " ".join(f"word{i}" for i in range(2_000))
    assert elmo_main(["demo", "--word", "bank", "--sentences", "a bank", paragraph]) == 2
    shown = ", ".join(f"'word{i}'" for i in range(SHOWN_TOKENS))
    assert capsys.readouterr().err == (
        f"elmo demo: error: 'bank' is not a token of {quoted(paragraph)} (tokens: [{shown} and "
        f"{2_000 - SHOWN_TOKENS:,} more])\n"
    )


def test_a_long_word_is_quoted_cut_short(capsys):
    word = "x" * 5_000
    assert elmo_main(["demo", "--word", word, "--sentences", "a bank", "the shore"]) == 2
    line = capsys.readouterr().err
    assert line.startswith(f"elmo demo: error: {quoted(word)} is not a token of 'a bank'") and len(line) < 200, line
