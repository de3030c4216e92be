"""Setting a special token on the tokenizer is refused as add_special_tokens is (was kept silently: padding
unchanged, all_special_ids a row of char ids, and the token written to tokenizer_config.json); the idioms that
set one to what it is pass."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize("key, value", [("pad_token", "[PAD]"), ("eos_token", "</s>"), ("eos_token_id", 2)])
def test_setting_a_special_token_is_refused_in_one_line_saying_padding_is_built_in(key, value, tmp_path):
    tokenizer = ElmoTokenizer()
    with pytest.raises(ValueError) as refused:
        setattr(tokenizer, key, value)
    assert str(refused.value).startswith(f"{key} = the {type(value).__name__} {value!r}: ElmoTokenizer has no token")
    assert "padding is built in (pad_token_id 0)" in str(refused.value) and "\n" not in str(refused.value)
    assert tokenizer.all_special_ids == [] and tokenizer.special_tokens_map == {}


def test_setting_the_pad_token_to_the_eos_token_or_its_id_to_0_changes_nothing():
    tokenizer = ElmoTokenizer()
    tokenizer.pad_token = tokenizer.eos_token  # None: ELMo has no eos token
    tokenizer.pad_token_id = tokenizer.eos_token_id
    tokenizer.pad_token_id = 0  # was: pad_token "", the char ids of an empty word in all_special_ids
    assert (tokenizer.pad_token, tokenizer.pad_token_id, tokenizer.all_special_ids) == (None, 0, [])
    assert tokenizer(["a b", "c"], padding=True)["input_ids"][1][1] == [0] * 50
