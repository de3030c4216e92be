"""A special token given when the tokenizer is built is refused in one line, as setting one is (was kept: padding
unchanged, all_special_ids a row of char ids); one that an older folder's tokenizer files saved is dropped with a
one-line warning naming it, and the folder loads."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer
from transformers.testing_utils import CaptureLogger

from hf_elmo import ElmoTokenizer
from hf_elmo.pretrained import DEFAULT_MODEL
from hf_elmo.tokenizer_settings import _logger

PAD = {"content": "[PAD]", "lstrip": False, "normalized": False, "rstrip": False, "single_word": False, "special": True}


@pytest.mark.parametrize(
    "load",
    [ElmoTokenizer.from_pretrained, AutoTokenizer.from_pretrained, lambda _folder, **kwargs: ElmoTokenizer(**kwargs)],
)
@pytest.mark.parametrize(
    "key, value, said",
    [
        ("pad_token", "[PAD]", "the str '[PAD]'"),
        ("eos_token", "</s>", "the str '</s>'"),
        ("additional_special_tokens", ["<x>"], "the list ['<x>']"),
        ("extra_special_tokens", ["<x>"], "the list ['<x>']"),
    ],
)
def test_a_special_token_given_in_code_is_refused_in_one_line(load, key, value, said):
    with pytest.raises(ValueError) as refused:
        load(str(DEFAULT_MODEL), **{key: value})
    assert str(refused.value).startswith(f"{key} = {said}: ElmoTokenizer has no token vocabulary to add to: ")
    assert "padding is built in (pad_token_id 0)" in str(refused.value) and "\n" not in str(refused.value)


def test_none_or_no_special_tokens_given_in_code_change_nothing():
    tokenizer = ElmoTokenizer(pad_token=None, extra_special_tokens=[], added_tokens_decoder={})
    assert (tokenizer.all_special_ids, tokenizer.special_tokens_map, tokenizer.pad_token_id) == ([], {}, 0)


def old_folder(folder, **saved):
    """A tokenizer folder as an older ElmoTokenizer saved it, with ``saved`` in its tokenizer_config.json."""
    ElmoTokenizer().save_pretrained(folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, **saved}))
    return folder


@pytest.mark.parametrize("load", [ElmoTokenizer.from_pretrained, AutoTokenizer.from_pretrained])
def test_special_tokens_an_older_folder_saved_are_dropped_with_a_one_line_warning_naming_them(load, tmp_path):
    folder = old_folder(
        tmp_path, pad_token="[PAD]", additional_special_tokens=["<x>"], added_tokens_decoder={"262": PAD}
    )
    with CaptureLogger(_logger) as told:
        tokenizer = load(folder)
    assert told.out.count("\n") == 1 and told.out.startswith(f"{folder}: the special tokens its tokenizer files saved")
    for named in ("pad_token = the str '[PAD]'", "extra_special_tokens = the list ['<x>']", "the list ['[PAD]']"):
        assert named in told.out
    assert "save the tokenizer again (tokenizer.save_pretrained)" in told.out
    assert (tokenizer.pad_token, tokenizer.all_special_ids, tokenizer.added_tokens_decoder) == (None, [], {})
    assert tokenizer(["a b", "c"], padding=True)["input_ids"][1][1] == [0] * 50
    tokenizer.save_pretrained(tmp_path / "again")  # saved again, the folder leaves them out
    with CaptureLogger(_logger) as again:
        assert ElmoTokenizer.from_pretrained(tmp_path / "again").all_special_ids == []
    assert again.out == ""


def test_an_older_folder_with_a_byte_order_mark_is_named_in_the_warning(tmp_path):
    folder = old_folder(tmp_path, pad_token="[PAD]")
    text = (folder / "tokenizer_config.json").read_bytes()
    (folder / "tokenizer_config.json").write_bytes(b"\xef\xbb\xbf" + text)
    with CaptureLogger(_logger) as told:
        assert ElmoTokenizer.from_pretrained(folder).all_special_ids == []
    assert told.out.startswith(f"{folder}: the special tokens its tokenizer files saved are dropped (pad_token = ")


def test_a_special_token_given_with_an_older_folder_is_refused_before_it_loads(tmp_path):
    folder = old_folder(tmp_path, pad_token="[PAD]")
    with CaptureLogger(_logger) as told, pytest.raises(ValueError, match=r"^pad_token = the str '<pad>': "):
        ElmoTokenizer.from_pretrained(folder, pad_token="<pad>")
    assert told.out == ""
