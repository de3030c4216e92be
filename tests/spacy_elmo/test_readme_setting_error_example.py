"""README's example of a bad value's refusal at its place in the config is what a pipeline of two listeners prints."""

import re

import pytest
from spacy.util import load_model_from_config
from thinc.api import ConfigValidationError

from tests.conftest import REPO
from tests.spacy_elmo.test_spacy_setting_error_names_component import MIX, set_at, two_listeners_config

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())  # sentences on one line


def test_readmes_example_of_a_bad_value_at_its_place_is_the_error_spacy_prints():
    (example,) = re.findall(r"it says which \(`([^`]+)`\)", README)
    config = two_listeners_config()
    set_at(config, ["components", "textcat", *MIX, "dropout"], 2)
    with pytest.raises(ConfigValidationError) as info:
        load_model_from_config(config)
    (error,) = info.value.errors
    assert example == " -> ".join(error["loc"]) + " " + error["msg"]  # a tab printed, two spaces in README
