"""``ElmoConfig.from_pretrained("~/model")`` and ``ElmoTokenizer.from_pretrained("~/model")`` read the home
folder's model, as ``ElmoModel.from_pretrained("~/model")`` does (was: transformers took "~/model" for a Hub id:
"Repo id must use alphanumeric chars ...")."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoConfig, ElmoTokenizer
from tests.hf_elmo.random_inputs import clipped_random_model


@pytest.mark.parametrize("saved", ["model", "config and tokenizer alone"])
def test_config_and_tokenizer_read_a_quoted_home_path(saved, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    model = clipped_random_model()
    if saved == "model":
        model.save_pretrained(home / "model")
    else:
        model.config.save_pretrained(home / "model")
        ElmoTokenizer(max_characters_per_token=model.config.max_characters_per_token).save_pretrained(home / "model")
    config = ElmoConfig.from_pretrained("~/model")
    assert config.to_diff_dict() == model.config.to_diff_dict()
    tokenizer = ElmoTokenizer.from_pretrained("~/model")
    assert tokenizer.max_characters_per_token == model.config.max_characters_per_token
