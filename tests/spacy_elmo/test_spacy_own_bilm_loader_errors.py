"""A biLM in a component's own model (``spacy-elmo.ElmoMix.v1``) whose loader names a model that cannot be
loaded: one config error at its ``loader`` setting, which ``spacy train`` prints without a traceback, as it
prints the elmo component's."""

import pytest
import spacy
from thinc.api import ConfigValidationError

from tests.spacy_elmo.pipeline_helpers import own_bilm_ner_config, training_examples
from tests.spacy_elmo.test_default_model import WRONG


def test_a_missing_model_in_an_elmo_mix_s_biLM_loader_is_one_config_error_at_that_setting():
    """Was: the resolver's ModelNotFoundError with a traceback from deep in nlp.initialize."""
    config = own_bilm_ner_config({"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": WRONG})
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", config=config)
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize(lambda: training_examples(nlp))
    assert info.value.title == "Cannot load the ELMo biLM of spacy-elmo.ElmoBiLm"
    (error,) = info.value.errors
    assert error["loc"] == ["loader"]
    assert WRONG in error["msg"] and "\n" not in error["msg"]
