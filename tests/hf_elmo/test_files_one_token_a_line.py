"""A file of one token a line (CoNLL's layout, a tokenizer's output) given where one sentence a line is read is
refused in one line that says so and what to do: by ``read_corpus`` (``elmo pretrain``, ``perplexity``, ``demo
--text``), and by ``elmo embed`` where blank lines part its sentences (was: each token read as a sentence of one
word, a model, a perplexity and vectors of no sentence, without a word; ``elmo embed`` told to remove the blank
lines, which does just that). A list of words without blank lines is still embedded, one vector set a word."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main
from hf_elmo.corpus import CorpusError, read_corpus
from hf_elmo.embed.scan import scan_input

SENTENCES = [["The", "cat", "sat", "on", "the", "mat", "."], ["Hello", "world", "!"], ["It", "rains", "."]]
ONE_TOKEN_A_LINE = "\n\n".join("\n".join(tokens) for tokens in SENTENCES) + "\n"  # 13 tokens, 13 lines of them


def _said(path) -> str:
    return (
        f"{path}: 13 of 13 lines hold a single token: one token a line (as CoNLL files and tokenizers write them), "
        "not one sentence a line; put each sentence's tokens on one line, separated by spaces"
    )


def test_a_corpus_of_one_token_a_line_is_refused_saying_so(tmp_path):
    corpus = tmp_path / "train.txt"
    corpus.write_text(ONE_TOKEN_A_LINE)
    with pytest.raises(CorpusError) as refused:
        read_corpus(corpus)
    assert str(refused.value) == _said(corpus)


def test_elmo_pretrain_refuses_it_before_writing_anything(tmp_path, capsys):
    corpus = tmp_path / "train.txt"
    corpus.write_text(ONE_TOKEN_A_LINE)
    assert main(["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", "--device", "cpu"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"elmo pretrain: error: {_said(corpus)}"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["train.txt"]


def test_elmo_embed_says_one_token_a_line_rather_than_to_remove_the_blank_lines(tmp_path):
    text = tmp_path / "tokens.txt"
    text.write_text(ONE_TOKEN_A_LINE)
    with pytest.raises(CorpusError) as refused:
        scan_input(text)
    assert str(refused.value) == f"{_said(text)}; nothing was written"


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(" ".join(tokens) for tokens in SENTENCES * 4) + "\nYes\nNo\n",  # a few one-word lines among sentences
        "\n".join(["the", "cat", "sat", "on", "the", "mat", "hello", "world", "rain"]) + "\n",  # too few to tell
    ],
    ids=["sentences", "nine-lines"],
)
def test_sentences_and_short_files_are_read_as_before(tmp_path, text):
    corpus = tmp_path / "train.txt"
    corpus.write_text(text)
    assert len(read_corpus(corpus)) == len(text.splitlines())
    assert scan_input(corpus).num_lines == len(text.splitlines())


def test_a_list_of_words_without_blank_lines_is_embedded_a_word_a_line(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(tokens[0] for tokens in SENTENCES * 5) + "\n")
    assert scan_input(words).num_lines == 15
