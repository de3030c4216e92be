"""An input file named with a trailing slash (``two.txt/``, as shell completion of a folder leaves it) is refused
in one line naming the input and saying to drop the slash, by every command's file input
(``hf_elmo.fileio.check_input_names_a_file``, called by ``corpus.check_text_file`` and ``convert``'s readers):
elmo embed's input, elmo perplexity's corpus and --vocab, elmo pretrain's training file and --vocab, elmo convert's
options and weight files. Was: ``Path`` dropped the slash, so the file was read quietly (perplexity, pretrain,
convert), or ``two.txt/: Not a directory`` without naming the input (embed)."""

from __future__ import annotations

import pytest

import hf_elmo.training.evaluation
from hf_elmo.fileio import check_input_names_a_file
from hf_elmo_cli import main


@pytest.fixture(autouse=True)
def no_model(monkeypatch):
    def load_lm(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(hf_elmo.training.evaluation, "load_lm", load_lm)


@pytest.fixture
def text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "two.txt").write_text("the cat sat .\n", encoding="utf-8")
    return tmp_path


def said(command: str, what: str) -> str:
    return (
        f"elmo {command}: error: {what} two.txt/ ends with '/', naming a folder, but two.txt is a file: drop the '/'\n"
    )


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["embed", "two.txt/", "o.hdf5"], "the input"),
        (["perplexity", "two.txt/", "--no-progress"], "the corpus file"),
        (["perplexity", "two.txt", "--vocab", "two.txt/", "--no-progress"], "the vocabulary file"),
        (["pretrain", "two.txt/", "out", "--epochs", "1", "--no-progress"], "the training file"),
        (["pretrain", "two.txt", "out", "--epochs", "1", "--vocab", "two.txt/", "--no-progress"], "--vocab"),
    ],
    ids=["embed", "perplexity", "perplexity-vocab", "pretrain", "pretrain-vocab"],
)
def test_a_text_input_with_a_trailing_slash_is_refused_naming_it(argv, what, text, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == said(argv[0], what)
    assert captured.out == ""
    assert sorted(path.name for path in text.iterdir()) == ["two.txt"]


def test_elmo_convert_refuses_an_options_or_weight_file_with_a_trailing_slash(allennlp_fixture, tmp_path, capsys):
    options, weights = allennlp_fixture / "options.json", allennlp_fixture / "lm_weights.hdf5"
    out = tmp_path / "out"
    assert main(["convert", f"{options}/", str(weights), str(out)]) == 2
    assert capsys.readouterr().err == (
        f"elmo convert: error: the options file {options}/ ends with '/', naming a folder, but {options} is a file: "
        "drop the '/'\n"
    )
    assert main(["convert", str(options), f"{weights}/", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"elmo convert: error: the weight file {weights}/ ends with '/', naming a folder, but {weights} is a file: "
        "drop the '/'\n"
    )
    assert not out.exists()


def test_a_folder_or_a_missing_name_with_a_trailing_slash_is_left_to_the_other_checks(tmp_path):
    check_input_names_a_file(f"{tmp_path}/", "the input")
    check_input_names_a_file(f"{tmp_path}/missing.txt/", "the input")
