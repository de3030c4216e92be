"""A --license that is no Hub licence id is refused in one short line naming it, one from Python that is no str
too (was: re's 'expected string or bytes-like object', or the whole string however long)."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo.training.settings import PretrainSettings, check_settings

START = "--license must be a Hub licence id (lower case, e.g. apache-2.0, cc-by-sa-4.0, mit, other), got "


@pytest.mark.parametrize(
    "license, shown",
    [
        ("CC BY-SA", "the str 'CC BY-SA'"),
        ("x " * 500, f"the str {repr('x ' * 500)[:40]}..."),
        (5, "the int 5"),
        (np.zeros((2, 2)), "a value of type ndarray"),
    ],
    ids=["spaced", "long", "int", "array"],
)
def test_a_license_that_is_no_hub_id_is_named_in_one_short_line(tmp_path, license, shown):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n")
    settings = PretrainSettings(train_file=str(corpus), output_dir=str(tmp_path / "m"), epochs=1, license=license)
    with pytest.raises(ValueError) as refused:
        check_settings(settings)
    assert str(refused.value) == START + shown
