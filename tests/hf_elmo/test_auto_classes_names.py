"""What README.md says of transformers' Auto classes and pipeline: they resolve names and read
config.json before any ELMo code runs, so an ``hf-elmo:`` name, or a config.json with a byte-order
mark, fails there with transformers' own line, while the shipped folder as a str loads."""

from __future__ import annotations

import shutil

import pytest
from transformers import AutoConfig, AutoModel, AutoTokenizer

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo.loading import resolve_model
from hf_elmo.pretrained import DEFAULT_MODEL

NAME = "hf-elmo:elmo-2x1024-en"


@pytest.mark.parametrize("auto", [AutoConfig, AutoTokenizer, AutoModel])
def test_an_auto_class_refuses_an_hf_elmo_name_as_the_readme_quotes_and_takes_its_folder(auto):
    with pytest.raises(OSError, match=r"^Repo id must use alphanumeric chars.*: 'hf-elmo:elmo-2x1024-en'"):
        auto.from_pretrained(NAME)
    assert auto.from_pretrained(str(resolve_model(NAME).path)) is not None


def test_a_config_with_a_byte_order_mark_loads_with_the_elmo_classes_not_the_auto_ones(tmp_path):
    folder = shutil.copytree(DEFAULT_MODEL, tmp_path / "elmo")
    config = folder / "config.json"
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes())
    assert ElmoConfig.from_pretrained(folder).pre_tokenizer == "spacy:en"
    assert isinstance(ElmoModel.from_pretrained(folder), ElmoModel)
    assert ElmoTokenizer.from_pretrained(folder).pre_tokenizer == "spacy:en"
    with pytest.raises(OSError, match=r"It looks like the config file at '.*config\.json' is not a valid JSON file"):
        AutoConfig.from_pretrained(folder)
