"""A settings file that holds a JSON value other than an object names that value as every refusal names one
(``messages.described``), not by the name of its Python type."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer
from hf_elmo.convert import read_options


@pytest.mark.parametrize("text, shown", [("[1]", "the list [1]"), ("null", "None")], ids=["list", "null"])
def test_an_options_json_that_is_no_object_is_named_by_its_value(text, shown, tmp_path):
    """Was: "expected a JSON object, got list" (and "got NoneType" for null)."""
    path = tmp_path / "options.json"
    path.write_text(text)
    with pytest.raises(ValueError) as refused:
        read_options(path)
    assert str(refused.value) == (f"{path}: expected a JSON object, got {shown}: give the model's options.json")


def test_a_tokenizer_config_that_holds_null_is_named_so(tmp_path):
    """Was: "(the JSON NoneType, not an object)"."""
    ElmoTokenizer().save_pretrained(tmp_path)
    (tmp_path / "tokenizer_config.json").write_text("null")
    with pytest.raises(ValueError) as refused:
        ElmoTokenizer.from_pretrained(tmp_path)
    assert str(refused.value) == (
        f"{tmp_path / 'tokenizer_config.json'} is not a JSON object of settings (it holds None); restore it, or "
        "write the folder again with save_pretrained"
    )
