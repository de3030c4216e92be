"""ElmoTokenizer.save_pretrained(filename_prefix=...) is refused in one line before anything is written
(transformers wrote PREFIX-tokenizer_config.json, and AutoTokenizer.from_pretrained of the folder then
failed with a cryptic "backend tokenizer" error)."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer


def test_a_filename_prefix_is_refused_before_anything_is_written(tmp_path):
    folder = tmp_path / "tokenizer"
    with pytest.raises(ValueError) as caught:
        ElmoTokenizer().save_pretrained(folder, filename_prefix="x")
    assert str(caught.value) == (
        "ElmoTokenizer.save_pretrained: filename_prefix='x' would write x-tokenizer_config.json, which "
        "from_pretrained does not read (it reads tokenizer_config.json): save into a folder of its own, "
        "without filename_prefix"
    )
    assert not folder.exists()
