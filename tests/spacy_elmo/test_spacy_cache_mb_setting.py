"""What ``cache_mb`` accepts, given to ``ActivationCache`` or in a config: a finite number of MiB >= 0."""

import math

import pytest
import spacy
from thinc.api import Config, ConfigValidationError

from spacy_elmo.cache import ActivationCache


@pytest.mark.parametrize(
    "max_mb, shown",
    [
        (math.inf, "the float inf"),
        (math.nan, "the float nan"),
        (-1, "the int -1"),
        (-0.5, "the float -0.5"),
        (True, "the bool True"),
        (False, "the bool False"),
        ("12", "the str '12'"),
        (None, "None"),
    ],
)
def test_a_bound_that_is_no_finite_number_of_mib_at_least_0_is_refused_in_one_line_naming_it(max_mb, shown):
    """Was: inf an OverflowError, True a bound of 1 MiB, False a disabled cache, "12" a TypeError."""
    with pytest.raises(ConfigValidationError) as info:
        ActivationCache(max_mb)
    (error,) = info.value.errors
    assert error["loc"] == ["cache_mb"]
    assert error["msg"] == f"must be a finite number of MiB >= 0 (0 disables the cache), got {shown}"


@pytest.mark.parametrize("written", ["inf", '"inf"', "nan", '"512"'])
def test_a_config_s_cache_mb_that_is_no_number_is_one_config_error(written):
    """A config reads ``inf`` and ``nan`` as strings, which spaCy's check of the setting's type let through.
    Was: a TypeError from deep in the component."""
    cache_mb = Config().from_str(f"[elmo]\ncache_mb = {written}")["elmo"]["cache_mb"]
    with pytest.raises(ConfigValidationError) as info:
        spacy.blank("en").add_pipe("elmo", config={"cache_mb": cache_mb})
    (error,) = info.value.errors
    assert error["loc"] == ["components", "elmo", "cache_mb"] and repr(cache_mb) in error["msg"]


@pytest.mark.parametrize("max_mb", [0, 0.25, 512, 1e6])
def test_finite_bounds_are_kept_in_bytes(max_mb):
    assert ActivationCache(max_mb).max_bytes == int(max_mb * 2**20)
