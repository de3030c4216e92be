"""The tokenizer's settings (where they are read from, which are refused) moved out of
``tokenization_elmo`` into ``tokenizer_settings``; every public name it defined before is still
importable from it, as the very object of its new home."""

from __future__ import annotations

import hf_elmo.tokenization_elmo as tokenization_elmo
from hf_elmo import tokenizer_settings

#: The public top-level names ``hf_elmo/tokenization_elmo.py`` defined before the split.
BEFORE_THE_SPLIT = [
    "TOKENIZER_ONLY_OUTPUTS", "TOKENIZER_CONFIG", "RESTORE_SETTINGS", "check_split_words", "check_padding_side",
    "check_lengths", "padded_length", "check_equal_lengths", "ElmoBatchEncoding", "ElmoTokenizer",
]  # fmt: skip


def test_every_public_name_tokenization_elmo_had_is_still_importable_from_it():
    assert [name for name in BEFORE_THE_SPLIT if not hasattr(tokenization_elmo, name)] == []
    assert set(BEFORE_THE_SPLIT) <= set(tokenization_elmo.__all__)
    assert all(hasattr(tokenization_elmo, name) for name in tokenization_elmo.__all__)


def test_a_moved_name_is_the_object_of_its_new_home():
    for name in set(BEFORE_THE_SPLIT) & set(vars(tokenizer_settings)):
        assert getattr(tokenization_elmo, name) is getattr(tokenizer_settings, name), name
