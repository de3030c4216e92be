"""``_saved_json`` (the tokenizer's reader of a model folder's settings files) returns its path,
contents and byte-order mark by name, not as a bare triple read by position in several places."""

from __future__ import annotations

import pytest

from hf_elmo import tokenizer_settings
from hf_elmo.pretrained import DEFAULT_MODEL


@pytest.mark.parametrize("marked", [False, True], ids=["plain", "byte-order-mark"])
def test_saved_json_names_the_files_path_contents_and_byte_order_mark(marked, tmp_path):
    content = (DEFAULT_MODEL / "tokenizer_config.json").read_bytes()
    (tmp_path / "tokenizer_config.json").write_bytes(b"\xef\xbb\xbf" + content if marked else content)
    saved = tokenizer_settings._saved_json(tmp_path, "tokenizer_config.json", {})
    assert saved is not None
    assert saved.path == str(tmp_path / "tokenizer_config.json")
    assert saved.contents["tokenizer_class"] == "ElmoTokenizer"
    assert saved.marked is marked
