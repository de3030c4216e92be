"""A number setting of a PretrainSettings built from Python that is no number (an array, a str, a bool) is refused in
one line naming its type, as the package names any value it refuses (was: its repr, an array's over several lines);
a number the command line gave is shown as typed ("got nan")."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo.training.settings import PretrainSettings, check_settings


def checked(tmp_path, **changes):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n")
    settings = PretrainSettings(train_file=str(corpus), output_dir=str(tmp_path / "m"), **{"epochs": 1, **changes})
    with pytest.raises(ValueError) as refused:
        check_settings(settings)
    return str(refused.value)


@pytest.mark.parametrize(
    "changes, start, shown",
    [
        ({"dropout": np.zeros((2, 2))}, "--dropout must be a finite number >= 0 and < 1", "a value of type ndarray"),
        ({"seed": np.zeros((2, 2))}, "--seed must be an integer >= 0 and <= ", "a value of type ndarray"),
        ({"lr": "0.1"}, "--lr must be a finite number > 0", "the str '0.1'"),
        ({"tokens_per_batch": True}, "--tokens-per-batch must be an integer >= ", "the bool True"),
        ({"seed": 10**50}, "--seed must be an integer >= 0 and <= ", f"the int {'1' + '0' * 39}..."),
    ],
    ids=["array-number", "array-integer", "str", "bool", "huge-int"],
)
def test_a_setting_that_is_no_number_is_named_by_its_type_in_one_line(tmp_path, changes, start, shown):
    refusal = checked(tmp_path, **changes)
    assert refusal.startswith(start) and refusal.endswith(f", got {shown}") and "\n" not in refusal


@pytest.mark.parametrize("lr, shown", [(float("nan"), "nan"), (-1.0, "-1.0"), (0, "0")])
def test_a_number_out_of_bounds_is_shown_as_typed(tmp_path, lr, shown):
    assert checked(tmp_path, lr=lr) == f"--lr must be a finite number > 0, got {shown}"
