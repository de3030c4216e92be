"""``is_number``: the one check that a number setting is a finite number and no bool, of the config's fields
and the spaCy settings alike."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hf_elmo.messages import is_number


@pytest.mark.parametrize("value", [0, 3, -2.5, 0.1, np.float32(0.5), np.int64(7)])
def test_a_finite_number_is_one(value):
    assert is_number(value)


@pytest.mark.parametrize("value", [True, False, math.inf, -math.inf, math.nan, "0.2", "nan", None, [1], np.zeros(2)])
def test_a_bool_an_infinite_or_nan_float_a_string_or_an_array_is_none(value):
    assert not is_number(value)


@pytest.mark.parametrize("value, whole", [(3, True), (np.int64(7), True), (3.0, False), (2.5, False)])
def test_whole_asks_for_an_integer(value, whole):
    assert is_number(value, whole=True) is whole
    assert is_number(value)


def test_the_spacy_settings_and_the_config_fields_share_it():
    import spacy_elmo.bilm
    import spacy_elmo.cache
    import spacy_elmo.scalar_mix

    assert spacy_elmo.bilm.is_number is spacy_elmo.cache.is_number is spacy_elmo.scalar_mix.is_number is is_number
