"""Another tokenizer's setting that changes the text (do_lower_case=True, ...) is refused in one line
(transformers keeps any keyword, unused: ELMo then read the text's capitals, accents and Chinese
characters as written, silently); given as false it asks for what ELMo does, and loads."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from hf_elmo import ElmoTokenizer
from hf_elmo.pretrained import DEFAULT_MODEL


def refusal(name: str, value: object) -> str:
    return (
        f"ElmoTokenizer has no setting {name}={value!r}: ELMo reads text as written (no lower-casing, accent "
        "stripping or splitting of Chinese characters); change the text before the tokenizer if the model was "
        f"trained on such text, or drop {name}"
    )


@pytest.mark.parametrize(
    "load",
    [ElmoTokenizer.from_pretrained, AutoTokenizer.from_pretrained, lambda _folder, **kwargs: ElmoTokenizer(**kwargs)],
)
@pytest.mark.parametrize("name", ["do_lower_case", "lowercase", "strip_accents", "tokenize_chinese_chars"])
def test_a_setting_that_changes_the_text_is_refused_naming_it(load, name):
    with pytest.raises(TypeError) as caught:
        load(str(DEFAULT_MODEL), **{name: True})
    assert str(caught.value) == refusal(name, True)


def test_one_in_tokenizer_config_json_is_refused(tmp_path):
    ElmoTokenizer().save_pretrained(tmp_path)
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({**config, "do_lower_case": True}))
    with pytest.raises(TypeError) as caught:
        AutoTokenizer.from_pretrained(tmp_path)
    assert str(caught.value) == refusal("do_lower_case", True)


@pytest.mark.parametrize("settings", [{"do_lower_case": False}, {"strip_accents": None}, {"add_prefix_space": True}])
def test_what_elmo_does_anyway_loads_and_reads_the_text_as_written(settings):
    tokenizer = AutoTokenizer.from_pretrained(str(DEFAULT_MODEL), **settings)
    assert tokenizer.tokenize("Über NASA") == ["Über", "NASA"]
