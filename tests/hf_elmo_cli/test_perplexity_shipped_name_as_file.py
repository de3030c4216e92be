"""``elmo perplexity`` given a shipped model's name where it reads FILE says so in one line, before anything loads:
alone (``elmo perplexity hf-elmo:NAME``: give FILE too, as for a model folder alone) or after the text file (``elmo
perplexity text.txt hf-elmo:NAME``: give the model first) (was: 'the corpus file hf-elmo:NAME: no such file')."""

from __future__ import annotations

from hf_elmo_cli import main

SHIPPED = "hf-elmo:elmo-2x1024-en"


def test_a_shipped_name_alone_asks_for_the_file_too(capsys):
    assert main(["perplexity", SHIPPED]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo perplexity: error: {SHIPPED} is a shipped model's name: give the text FILE to score too "
        f"(elmo perplexity FILE --model {SHIPPED})"
    ]


def test_a_shipped_name_after_the_file_asks_for_the_model_first(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "text.txt").write_text("a b\n", encoding="utf-8")
    assert main(["perplexity", "text.txt", SHIPPED]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo perplexity: error: {SHIPPED} is a shipped model's name and text.txt a file: give the model first "
        f"(elmo perplexity {SHIPPED} text.txt)"
    ]


def test_a_file_of_that_name_is_read_as_the_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / SHIPPED).write_text("", encoding="utf-8")  # a file named so: FILE, as before (empty: refused as such)
    assert main(["perplexity", SHIPPED]) == 2
    assert "shipped model's name" not in capsys.readouterr().err
