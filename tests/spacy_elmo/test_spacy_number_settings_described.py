"""A number setting of the biLM, the cache or the listener's mix given an array from Python is refused in one line
that names the array's type (was: the array's repr, over several lines)."""

import numpy as np
import pytest
from thinc.api import ConfigValidationError

from spacy_elmo.bilm import elmo_bilm_v3
from spacy_elmo.cache import ActivationCache
from spacy_elmo.scalar_mix import scalar_mix

ARRAY = np.zeros((2, 2))


@pytest.mark.parametrize(
    "make, setting",
    [
        (lambda: scalar_mix(dropout=ARRAY), "dropout"),
        (lambda: scalar_mix(l2=ARRAY), "l2"),
        (lambda: elmo_bilm_v3(tokens_per_batch=ARRAY), "tokens_per_batch"),
        (lambda: elmo_bilm_v3(grad_scaler_config={"init_scale": ARRAY}), "grad_scaler_config.init_scale"),
        (lambda: ActivationCache(ARRAY), "cache_mb"),
    ],
    ids=["dropout", "l2", "tokens_per_batch", "init_scale", "cache_mb"],
)
def test_an_array_given_for_a_number_setting_is_named_by_its_type_in_one_line(make, setting):
    with pytest.raises(ConfigValidationError) as info:
        make()
    (error,) = info.value.errors
    assert error["loc"] == [setting]
    assert error["msg"].endswith(", got a value of type ndarray")
