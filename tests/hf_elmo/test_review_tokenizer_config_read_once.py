"""``ElmoTokenizer.from_pretrained`` finds and reads a folder's ``tokenizer_config.json`` once (on the Hub, each
look-up is a request), the byte-order-mark check included."""

from __future__ import annotations

import collections

import pytest

from hf_elmo import ElmoTokenizer, tokenizer_settings
from hf_elmo.pretrained import DEFAULT_MODEL


@pytest.mark.parametrize("marked", [False, True], ids=["plain", "byte-order-mark"])
def test_from_pretrained_looks_up_the_tokenizer_config_once(marked, tmp_path, monkeypatch):
    """Was: twice, once for its settings and again for the byte-order mark."""
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("config.json", "tokenizer_config.json"):
        content = (DEFAULT_MODEL / name).read_bytes()
        (folder / name).write_bytes(
            b"\xef\xbb\xbf" + content if marked and name == "tokenizer_config.json" else content
        )
    looked_up: collections.Counter[tuple[str, str]] = collections.Counter()
    cached_file = tokenizer_settings.cached_file

    def counted(name_or_path, filename, *args, **kwargs):
        looked_up[str(name_or_path), filename] += 1
        return cached_file(name_or_path, filename, *args, **kwargs)

    monkeypatch.setattr(tokenizer_settings, "cached_file", counted)
    tokenizer = ElmoTokenizer.from_pretrained(folder)
    assert tokenizer.pre_tokenizer == "spacy:en" and tokenizer.name_or_path == str(folder)
    assert looked_up[str(folder), "tokenizer_config.json"] == 1  # (a marked one's copy is read from a temporary folder)
