"""PretrainSettings given storage_dtype and its old name save_dtype at odds, one of them an array, says so in one line
naming each (was: numpy's 'truth value of an array is ambiguous'); an array alone is refused by check_settings."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo.training.settings import PretrainSettings, check_settings

ARRAY = np.zeros((2, 2))


@pytest.mark.parametrize(
    "storage_dtype, save_dtype, shown",
    [
        ("float16", ARRAY, "storage_dtype the str 'float16' and save_dtype a value of type ndarray"),
        (ARRAY, "float16", "storage_dtype a value of type ndarray and save_dtype the str 'float16'"),
        (ARRAY, ARRAY, "storage_dtype a value of type ndarray and save_dtype a value of type ndarray"),
    ],
    ids=["save-array", "storage-array", "both-arrays"],
)
def test_storage_dtype_and_save_dtype_at_odds_are_named_in_one_line(storage_dtype, save_dtype, shown):
    with pytest.raises(TypeError) as refused:
        PretrainSettings("c.txt", "out", epochs=1, storage_dtype=storage_dtype, save_dtype=save_dtype)
    assert str(refused.value) == f"PretrainSettings got {shown}, its old name: give storage_dtype alone"


def test_an_array_save_dtype_alone_is_refused_by_the_settings_check(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n")
    settings = PretrainSettings(str(corpus), str(tmp_path / "m"), epochs=1, save_dtype=ARRAY)
    with pytest.raises(ValueError, match=r"^--storage-dtype must be one of .*, got a value of type ndarray$"):
        check_settings(settings)


def test_the_same_dtype_under_both_names_is_taken():
    assert PretrainSettings("c.txt", "out", epochs=1, storage_dtype="float16", save_dtype="float16").storage_dtype == (
        "float16"
    )
