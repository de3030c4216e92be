"""A biLM of a component's own model (``spacy-elmo.ElmoMix.v1``) that cannot be loaded at ``nlp.initialize`` is refused
at its ``loader``'s path in the config of the component that holds it: in a pipeline of two such components, the one
whose loader fails (was: ``loader`` alone)."""

import pytest
import spacy
from thinc.api import ConfigValidationError

from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, textcat_config, training_examples
from tests.spacy_elmo.test_default_model import WRONG

OWN_BILM = ["model", "tok2vec", "elmo", "bilm", "loader"]


def with_own_biLM(config: dict, folder: object) -> dict:
    """``config`` (a component's) whose tok2vec mixes a biLM of its own, loaded from ``folder``."""
    loader = loader_settings(folder)["loader"]
    config["model"]["tok2vec"]["elmo"] = {
        "@architectures": "spacy-elmo.ElmoMix.v1",
        "bilm": {"@architectures": "spacy-elmo.ElmoBiLm.v3", "loader": loader},
        "dropout": 0.0,
    }
    return config


@pytest.mark.parametrize("failing", ["ner", "textcat"])
def test_the_failing_loader_of_two_components_own_biLMs_is_named_at_its_component(tiny_elmo_dir, failing):
    nlp = spacy.blank("en")
    for name, config in (("ner", ner_config()), ("textcat", textcat_config())):
        nlp.add_pipe(name, config=with_own_biLM(config, WRONG if name == failing else tiny_elmo_dir))
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize(lambda: training_examples(nlp))
    assert info.value.title == "Cannot load the ELMo biLM of spacy-elmo.ElmoBiLm"
    (error,) = info.value.errors
    assert error["loc"] == ["components", failing, *OWN_BILM] and WRONG in error["msg"]


def test_a_component_initialised_alone_is_refused_at_the_loader_setting():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("ner", config=with_own_biLM(ner_config(), WRONG))
    with pytest.raises(ConfigValidationError) as info:
        ner.initialize(lambda: training_examples(nlp), nlp=nlp)
    assert info.value.errors[0]["loc"] == ["loader"]
