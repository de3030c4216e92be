"""A misspelt setting of ElmoTokenizer is refused in one line naming the setting meant (transformers
keeps any keyword, unused: the tokenizer then split text by the folder's rule, silently)."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from hf_elmo import ElmoTokenizer
from hf_elmo.pretrained import DEFAULT_MODEL

SETTINGS = r"\(its settings: max_characters_per_token, max_token_chars, pre_tokenizer\)$"


@pytest.mark.parametrize(
    "load",
    [ElmoTokenizer.from_pretrained, AutoTokenizer.from_pretrained, lambda _folder, **kwargs: ElmoTokenizer(**kwargs)],
)
@pytest.mark.parametrize(
    "misspelt, meant",
    [
        ("pre_tokenizers", "pre_tokenizer"),
        ("max_token_char", "max_token_chars"),
        ("max_chars_per_token", "max_characters_per_token"),
    ],
)
def test_a_misspelt_setting_is_refused_naming_the_one_meant(load, misspelt, meant):
    with pytest.raises(
        TypeError, match=rf"^ElmoTokenizer has no setting '{misspelt}': did you mean '{meant}'\? " + SETTINGS
    ):
        load(str(DEFAULT_MODEL), **{misspelt: None})


def test_a_misspelt_setting_in_tokenizer_config_json_is_refused(tmp_path):
    ElmoTokenizer(pre_tokenizer="whitespace").save_pretrained(tmp_path)
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    config["pre_tokenizers"] = config.pop("pre_tokenizer")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config))
    with pytest.raises(
        TypeError, match=r"^ElmoTokenizer has no setting 'pre_tokenizers': did you mean 'pre_tokenizer'"
    ):
        ElmoTokenizer.from_pretrained(tmp_path)


def test_transformers_own_keywords_are_still_taken():
    tokenizer = AutoTokenizer.from_pretrained(str(DEFAULT_MODEL), model_max_length=3, truncation_side="left")
    assert tokenizer(["a b c d"], truncation=True).word_ids() == [1, 2, 3]
