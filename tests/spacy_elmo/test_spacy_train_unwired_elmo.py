"""``spacy train`` of a pipeline whose elmo component no component listens to (what ``spacy init config
--pipeline elmo,ner`` writes) says that nothing trained uses ELMo."""

import warnings

import pytest
import spacy
from spacy.training.initialize import init_nlp
from thinc.api import Config

from tests.spacy_elmo.test_default_model import CONFIGS
from tests.spacy_elmo.test_listener_errors import ner_training_overrides

UNWIRED = "no component listens to the elmo component 'elmo', so none of those trained uses ELMo"


def test_spacy_init_config_s_elmo_without_listeners_warns_as_training_initialises(tiny_elmo_dir, tmp_path):
    """Was: trained without a word, the biLM running on every batch for nothing."""
    from spacy.cli.init_config import init_config

    config = init_config(lang="en", pipeline=["elmo", "ner"])  # what spacy init config --pipeline elmo,ner writes
    config["initialize"]["components"]["elmo"] = {
        "loader": {"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": str(tiny_elmo_dir)}
    }
    data = ner_training_overrides(tmp_path, tiny_elmo_dir, {})
    config["paths"].update(train=data["paths.train"], dev=data["paths.dev"])
    with pytest.warns(UserWarning, match=UNWIRED):
        init_nlp(config)


def test_the_shipped_config_and_an_elmo_outside_training_do_not_warn(tiny_elmo_dir, tmp_path):
    overrides = ner_training_overrides(tmp_path, tiny_elmo_dir, {})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        init_nlp(Config().from_disk(CONFIGS / "ner.cfg", overrides=overrides))
        nlp = spacy.blank("en")
        nlp.add_pipe("elmo")  # doc._.elmo and the vectors alone: no training, nothing to say
        nlp.config["initialize"]["components"]["elmo"] = {
            "loader": {"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": str(tiny_elmo_dir)}
        }
        nlp.initialize()
