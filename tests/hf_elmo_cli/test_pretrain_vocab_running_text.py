"""`elmo pretrain --vocab FILE` with running text as FILE (e.g. the training file) says so in one line
naming the file and line (was: "train.txt:9: 'The' is listed again", a line's first word read as its word)."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.training.test_pretrain_safety import error_of, files_under

pytestmark = pytest.mark.usefixtures("one_thread")


def test_a_training_file_given_as_the_vocabulary_is_named_as_running_text(tmp_path, capsys):
    corpus = tmp_path / "train.txt"
    corpus.write_text("The cat sat on the mat .\nThe dog ran .\n")
    before = files_under(tmp_path)
    argv = ["pretrain", str(corpus), str(tmp_path / "out"), "--vocab", str(corpus), "--epochs", "1"]
    assert main([*argv, "--no-progress"]) == 2
    assert error_of(capsys) == (
        f"elmo pretrain: error: {corpus}:1: 'The cat sat on ...' is several words: the file looks like running text "
        "(a training file?), not a vocabulary; a line of a vocabulary file is one word, optionally followed by its count"
    )
    assert files_under(tmp_path) == before


@pytest.mark.parametrize("line", ["New York", "1999 was a good year"], ids=["two-words", "starts-with-a-number"])
def test_a_line_of_several_words_is_refused_naming_its_line(line, tmp_path):
    path = tmp_path / "v.txt"
    path.write_text(f"<S>\n</S>\n<UNK>\nthe 12\n{line}\n")
    with pytest.raises(ValueError, match=rf"^{path}:5: '{' '.join(line.split()[:4])}.*' is several words: "):
        Vocabulary.from_file(path)


def test_a_word_with_its_count_or_score_is_read(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("<S>\n</S>\n<UNK>\nthe 12\ncat 0.5\ndog\n")
    assert Vocabulary.from_file(path).words == ["<S>", "</S>", "<UNK>", "the", "cat", "dog"]
