"""ElmoTokenizer.save_pretrained returns the files it wrote (was transformers' list, which names added_tokens.json,
never written for a tokenizer that adds no tokens: copying or uploading the returned files failed on it)."""

from __future__ import annotations

import os

from hf_elmo import ElmoTokenizer


def test_every_file_save_pretrained_returns_is_in_the_folder(tmp_path):
    saved = ElmoTokenizer().save_pretrained(tmp_path / "tok")
    assert [os.path.basename(path) for path in saved] == ["tokenizer_config.json"]
    assert all(os.path.isfile(path) for path in saved)
    assert [os.path.dirname(path) for path in saved] == [str(tmp_path / "tok")]  # not the hidden folder saved in
