"""A loader of one's own that returns something other than an ``ElmoModel``: one config error at its
``loader`` setting, which ``spacy train`` prints without a traceback, as it prints a loader that cannot load."""

from collections.abc import Callable

import pytest
import spacy
from thinc.api import ConfigValidationError

from tests.spacy_elmo.pipeline_helpers import elmo_mix_loader_error


@spacy.registry.misc("test-spacy-elmo.NoModelLoader.v1")
def no_model_loader_v1() -> Callable[[], object]:
    """A loader of one's own that returns a string, not a biLM."""
    return lambda: "x"


def test_a_loader_returning_no_model_is_one_config_error_at_the_elmo_component_s_loader_setting():
    """Was: a TypeError with a traceback from deep in nlp.initialize (``spacy train``)."""
    nlp = spacy.blank("en")
    elmo = nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = {"loader": {"@misc": "test-spacy-elmo.NoModelLoader.v1"}}
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize()
    assert info.value.title == "Cannot load the ELMo biLM of component 'elmo'"
    (error,) = info.value.errors
    assert error["loc"] == ["initialize", "components", "elmo", "loader"]
    assert error["msg"] == "an ELMo loader must return an hf_elmo.ElmoModel, got the str 'x'"
    assert elmo.model.shims[0].elmo is None


def test_a_loader_returning_no_model_in_an_elmo_mix_s_biLM_is_one_config_error_at_that_setting():
    error = elmo_mix_loader_error({"@misc": "test-spacy-elmo.NoModelLoader.v1"})
    assert error["msg"] == "an ELMo loader must return an hf_elmo.ElmoModel, got the str 'x'"
