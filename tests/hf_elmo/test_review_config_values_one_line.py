"""An ElmoConfig field given an array (whose repr spans lines, and which ``in`` cannot compare) is refused in one
line naming the field, as any other value of the wrong type is."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo import ElmoConfig
from hf_elmo.configuration_elmo import ElmoConfigError


@pytest.mark.parametrize(
    "field, message",
    [
        ("filters", "filters must be a list of [width, n_channels] pairs, e.g. [[1, 32], [2, 32], [3, 64]], got a "),
        ("activation", "activation must be one of ('relu', 'tanh'), got a "),
        ("n_characters", "n_characters must be 261 or 262 (ELMo's byte ids), got a "),
    ],
)
def test_a_field_given_an_array_is_refused_in_one_line(field, message):
    """Was, for filters and activation: "got array([[1, 2],\\n       [3, 4]])", over two lines; for n_characters:
    numpy's "The truth value of an array with more than one element is ambiguous", naming no field."""
    with pytest.raises(ElmoConfigError) as refused:
        ElmoConfig(**{field: np.array([[1, 2], [3, 4]])})
    assert str(refused.value) == f"ElmoConfig.{message}value of type ndarray"


def test_a_filter_given_as_an_array_row_is_named_in_one_line():
    """Was: "filter 0 is array([1, 2, 3])" (its repr, unbounded)."""
    with pytest.raises(ElmoConfigError, match=r"; filter 0 is the ndarray array\(\[1, 2, 3\]\)$"):
        ElmoConfig(filters=[np.array([1, 2, 3])])
