"""`elmo demo --help` says how --sentences are split into words (the model's own tokenizer's rule), so that a
--word such as "don't" is known to be two tokens for the shipped model before the run says so."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main as elmo_main


def test_the_sentences_help_says_how_they_are_split(capsys):
    with pytest.raises(SystemExit):
        elmo_main(["demo", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "split into words as the model's tokenizer splits raw text" in help_text
