"""Number settings of the biLM and the listener's mix that are no finite number (a config's "0.2", ``inf`` and
``nan``, which a config reads as strings and spaCy's type check lets through; a bool or inf from Python) are one
config error naming the setting and the value."""

import math

import pytest
import spacy
from thinc.api import Config, ConfigValidationError

from spacy_elmo.bilm import elmo_bilm_v3
from spacy_elmo.scalar_mix import scalar_mix


def read(written: str) -> object:
    """``written`` as a config file's value reads."""
    return Config().from_str(f"[x]\nv = {written}")["x"]["v"]


def refused(make, setting: str, value: object) -> str:
    with pytest.raises(ConfigValidationError) as info:
        make()
    (error,) = info.value.errors
    assert error["loc"] == [setting] and repr(value) in error["msg"]
    return error["msg"]


@pytest.mark.parametrize("setting", ["dropout", "l2"])
@pytest.mark.parametrize("value", [read('"0.2"'), read("nan"), read("inf"), math.inf, math.nan, True])
def test_the_mix_s_dropout_and_l2_must_be_finite_numbers(setting, value):
    """Was: a TypeError comparing a str (``'<=' not supported``), or l2 = inf taken."""
    refused(lambda: scalar_mix(**{setting: value}), setting, value)


def test_a_listener_in_a_config_with_dropout_nan_is_one_config_error():
    config = {"x": {"@architectures": "spacy-elmo.ElmoMixListener.v1", "upstream": "elmo", "dropout": read("nan")}}
    with pytest.raises(ConfigValidationError, match="must be in \\[0, 1\\), got the str 'nan'"):
        spacy.util.registry.resolve(config)


@pytest.mark.parametrize(
    "value, shown",
    [
        (read('"4096"'), "the str '4096'"),
        (4096.0, "the float 4096.0"),
        (True, "the bool True"),
        (math.inf, "the float inf"),
    ],
)
def test_tokens_per_batch_must_be_a_whole_number(value, shown):
    """Was: a TypeError for "4096" (which spaCy's type check lets through), and 4096.0 or True taken."""
    msg = refused(lambda: elmo_bilm_v3(tokens_per_batch=value), "tokens_per_batch", value)
    assert msg == f"must be a whole number >= 1 of padded tokens, got {shown}"


@pytest.mark.parametrize("value, shown", [(math.inf, "the float inf"), (math.nan, "the float nan")])
def test_a_grad_scaler_setting_must_be_finite(value, shown):
    """Was: inf taken as init_scale from Python (the config's "inf", a string, was refused)."""
    setting = "grad_scaler_config.init_scale"
    msg = refused(lambda: elmo_bilm_v3(grad_scaler_config={"init_scale": value}), setting, value)
    assert msg == f"must be a finite number > 0, got {shown}"


def test_finite_settings_are_taken():
    mix = scalar_mix(dropout=0.2, l2=0.001)
    assert (mix.attrs["mix_dropout"], mix.attrs["l2"]) == (0.2, 0.001)
    assert elmo_bilm_v3(tokens_per_batch=128, grad_scaler_config={"init_scale": 2.0}).attrs["tokens_per_batch"] == 128
