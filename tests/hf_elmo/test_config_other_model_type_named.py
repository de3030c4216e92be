"""A config.json of another model is refused naming that model by its model_type where that is a short name
("the config of a bert model"), and as "another model" where it is not (a list, a long or multi-line string), so
that the refusal stays one short line (was: the raw field, however long, across lines)."""

from __future__ import annotations

import json

import pytest

from hf_elmo import ElmoConfig, ElmoTokenizer
from hf_elmo.configuration_elmo import ElmoConfigError

ODD_TYPES = {"list": ["bert"] * 50, "long": "x" * 1000, "lines": "bert\nmodel", "blank": ""}


@pytest.mark.parametrize("model_type", list(ODD_TYPES.values()), ids=list(ODD_TYPES))
def test_a_model_type_that_is_no_short_name_is_said_as_another_model(tmp_path, model_type):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": model_type}))
    with pytest.raises(ElmoConfigError) as config_refused:
        ElmoConfig.from_json_file(tmp_path / "config.json")
    with pytest.raises(ValueError) as tokenizer_refused:
        ElmoTokenizer.from_pretrained(tmp_path)
    assert str(config_refused.value).endswith(": the config of another model, not of an ELMo one")
    assert str(tokenizer_refused.value).startswith(f"{tmp_path / 'config.json'} is the config of another model, not ")
    for refused in (config_refused, tokenizer_refused):
        assert "\n" not in str(refused.value) and len(str(refused.value)) < 300 + len(str(tmp_path))


@pytest.mark.parametrize("model_type", ["bert", "xlm-roberta", "gpt_neox"])
def test_a_model_type_that_is_a_name_is_said(tmp_path, model_type):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": model_type}))
    with pytest.raises(ElmoConfigError, match=f": the config of a {model_type} model, not of an ELMo one$"):
        ElmoConfig.from_json_file(tmp_path / "config.json")
    with pytest.raises(ValueError, match=f"is the config of a {model_type} model, not an ELMo one: load its"):
        ElmoTokenizer.from_pretrained(tmp_path)
