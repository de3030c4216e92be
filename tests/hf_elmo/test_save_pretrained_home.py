"""``save_pretrained("~/model")`` of the model, its config and its tokenizer writes in the home folder, where
``from_pretrained("~/model")`` reads (was: a folder named ``~`` made in the current folder, which
``from_pretrained`` of the same path did not find)."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from tests.hf_elmo.random_inputs import clipped_random_model


def test_save_pretrained_writes_a_quoted_home_path_in_the_home_folder(home, tmp_path):
    model = clipped_random_model()
    model.save_pretrained("~/model")
    model.config.save_pretrained("~/config")
    ElmoTokenizer().save_pretrained("~/tokenizer")
    assert list((tmp_path / "work").iterdir()) == []
    assert (home / "model" / "model.safetensors").is_file() and (home / "config" / "config.json").is_file()
    assert (home / "tokenizer" / "tokenizer_config.json").is_file()
    assert ElmoModel.from_pretrained("~/model").config.name_or_path == str(home / "model")
    assert ElmoConfig.from_pretrained(home / "config").max_characters_per_token == model.config.max_characters_per_token
    assert ElmoTokenizer.from_pretrained(home / "tokenizer").max_characters_per_token == 50


def test_a_quoted_home_path_that_is_a_file_is_refused_naming_it(home):
    (home / "notes.txt").write_text("mine")
    with pytest.raises(NotADirectoryError, match=f"^{home / 'notes.txt'} is a file, but save_pretrained writes a"):
        clipped_random_model().save_pretrained("~/notes.txt")
    assert (home / "notes.txt").read_text() == "mine"
