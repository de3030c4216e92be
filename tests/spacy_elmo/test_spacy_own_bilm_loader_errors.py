"""A biLM in a component's own model (``spacy-elmo.ElmoMix.v1``) whose loader names a model that cannot be
loaded: one config error at its ``loader`` setting, which ``spacy train`` prints without a traceback, as it
prints the elmo component's."""

from tests.spacy_elmo.pipeline_helpers import elmo_mix_loader_error
from tests.spacy_elmo.test_default_model import WRONG


def test_a_missing_model_in_an_elmo_mix_s_biLM_loader_is_one_config_error_at_that_setting():
    """Was: the resolver's ModelNotFoundError with a traceback from deep in nlp.initialize."""
    error = elmo_mix_loader_error({"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": WRONG})
    assert WRONG in error["msg"] and "\n" not in error["msg"]
