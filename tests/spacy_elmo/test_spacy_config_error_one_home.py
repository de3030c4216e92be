"""``config_error``, the one home of the spaCy config errors that spacy_elmo raises (a biLM that cannot be loaded, a
model named twice, a listener that gets no layers, the layers that do not fit a trained component, a bad setting):
one problem at one setting, titled, printed without the config, as ``spacy train`` prints its own."""

import re

import pytest
from spacy.training.initialize import init_nlp
from thinc.api import ConfigValidationError

from spacy_elmo.config_errors import config_error
from tests.spacy_elmo.pipeline_helpers import tiny_elmo
from tests.spacy_elmo.test_loader_settings import initialise_ner_cfg
from tests.spacy_elmo.test_spacy_listener_trained_with_train import sourcing_config


def test_a_config_error_is_one_problem_at_its_setting_without_the_config():
    error = config_error("Component 'ner' gets no ELMo layers", ["components", "ner"], "add an elmo component")
    assert isinstance(error, ConfigValidationError)
    assert (error.title, error.errors, error.show_config) == (
        "Component 'ner' gets no ELMo layers",
        [{"loc": ["components", "ner"], "msg": "add an elmo component"}],
        False,
    )
    assert re.fullmatch(
        r"\s*Component 'ner' gets no ELMo layers\s+components -> ner\s+add an elmo component\s*", str(error)
    )


def test_a_model_named_in_both_loader_settings_is_titled_so(tiny_elmo_dir):
    with pytest.raises(ConfigValidationError) as info:
        initialise_ner_cfg(tiny_elmo_dir, paths_elmo=tiny_elmo_dir)
    assert (info.value.title, info.value.show_config) == ("Two ELMo models given for component 'elmo'", False)


def test_the_layers_of_another_biLM_in_spacy_train_are_titled_at_the_component(tmp_path):
    for seed in (0, 1):
        tiny_elmo(seed).save_pretrained(tmp_path / f"bilm-{seed}")
    config, _ = sourcing_config(tmp_path, tmp_path / "bilm-1")
    with pytest.raises(ConfigValidationError) as info:
        init_nlp(config)
    assert (info.value.title, info.value.show_config) == ("The ELMo layers do not fit component 'ner'", False)
