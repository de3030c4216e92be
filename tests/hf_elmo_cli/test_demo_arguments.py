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


def test_a_word_given_without_sentences_is_refused_saying_to_give_sentences_before_the_model_loads(monkeypatch, capsys):
    """Was: "'bank' is not a token of "Let's stick ..." (tokens: [...])", after loading the model, without
    saying that the two sentences are the default 'stick' pair, which --sentences replaces."""
    import hf_elmo.loading

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(hf_elmo.loading, "load_bilm", no_model)
    assert elmo_main(["demo", "--word", "bank"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("elmo demo: error: 'bank' is not a token of \"Let's stick to improvisation")
    assert (
        captured.err.endswith("; give two sentences that contain it with --sentences 'SENTENCE 1' 'SENTENCE 2'\n")
        and captured.err.count("\n") == 1
    )
    assert captured.out == ""
    assert elmo_main(["demo", "--word", "bank", "--sentences", "a bank", "the shore"]) == 2
    assert capsys.readouterr().err == (
        "elmo demo: error: 'bank' is not a token of 'the shore' (tokens: ['the', 'shore'])\n"
    )
