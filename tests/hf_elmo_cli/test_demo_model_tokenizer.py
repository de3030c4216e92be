"""`elmo demo --sentences` splits them as the model's own tokenizer splits raw text."""

from __future__ import annotations

from hf_elmo.cli import main as elmo_main


def test_demo_splits_its_sentences_with_the_models_own_pre_tokenizer(allennlp_fixture, capsys):
    """The original files split raw text at whitespace: "don't" is one token. Was: spaCy's English
    rules whatever the model ("do", "n't"), so "'don't' is not a token" and exit 2."""
    argv = ["demo", "--model", str(allennlp_fixture), "--word", "don't", "--top", "1"]
    assert elmo_main([*argv, "--sentences", "I don't know.", "you don't say"]) == 0
    out = capsys.readouterr().out
    assert "sentence 1: I [don't] know." in out and "sentence 2: you [don't] say" in out


def test_demo_of_the_shipped_model_still_splits_with_spacy(capsys):
    assert elmo_main(["demo", "--word", "stick", "--top", "1", "--sentences", "a stick.", "stick to it"]) == 0
    assert "sentence 1: a [stick] ." in capsys.readouterr().out
