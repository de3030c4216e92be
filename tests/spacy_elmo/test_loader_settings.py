"""Which of the two loader settings loads the biLM in a pipeline built from a shipped config, as
``spacy train`` builds and initialises it: ``[initialize.components.elmo.loader]`` (``--paths.elmo``)
or the model's own ``[components.elmo.model.loader]``."""

import logging
from pathlib import Path

import pytest
import spacy
from thinc.api import Config, ConfigValidationError

from tests.spacy_elmo.pipeline_helpers import loader_settings, training_examples
from tests.spacy_elmo.test_default_model import CONFIGS, WRONG


def initialise_ner_cfg(model_loader_path: Path, paths_elmo: Path | None = None) -> spacy.Language:
    """``ner.cfg`` with ``--paths.elmo`` and a loader on the biLM model, initialised."""
    config = Config().from_disk(CONFIGS / "ner.cfg", overrides={"paths.elmo": paths_elmo and str(paths_elmo)})
    config["components"]["elmo"]["model"]["loader"] = loader_settings(model_loader_path)["loader"]
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    return nlp


def test_the_model_s_loader_loads_its_model_when_paths_elmo_names_none(tiny_elmo_dir, caplog):
    with caplog.at_level(logging.WARNING, logger="spacy"):
        nlp = initialise_ner_cfg(tiny_elmo_dir)
    assert nlp.get_pipe("elmo").model.get_dim("nO") == 16  # the tiny biLM's 2P, not the shipped 256
    assert not [r for r in caplog.records if "using the shipped model" in r.getMessage()]


def test_a_model_named_in_both_loader_settings_is_one_config_error_naming_both(tiny_elmo_dir):
    with pytest.raises(ConfigValidationError) as info:
        initialise_ner_cfg(tiny_elmo_dir, paths_elmo=tiny_elmo_dir)
    (error,) = info.value.errors
    assert error["loc"] == ["initialize", "components", "elmo", "loader"]
    assert "[initialize.components.elmo.loader] and in [components.elmo.model.loader]" in error["msg"]
    assert "\n" not in error["msg"]


def test_a_wrong_path_in_the_model_s_loader_is_a_config_error_at_that_setting():
    with pytest.raises(ConfigValidationError) as info:
        initialise_ner_cfg(Path(WRONG))
    (error,) = info.value.errors
    assert error["loc"] == ["components", "elmo", "model", "loader"]
    assert WRONG in error["msg"] and "\n" not in error["msg"]


def test_a_word_baseline_as_the_biLM_is_one_config_error_saying_it_reads_word_ids(word_baseline_folder):
    """Was: initialised with it silently, a biLM the component cannot run (it has no char CNN)."""
    with pytest.raises(ConfigValidationError) as info:
        initialise_ner_cfg(word_baseline_folder)
    (error,) = info.value.errors
    assert error["loc"] == ["components", "elmo", "model", "loader"]
    assert error["msg"] == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; spacy-elmo's ElmoLoader needs a char-CNN biLM"
    )


def test_find_model_refuses_a_word_baseline_before_loading_it_in_the_loaders_words(word_baseline_folder, tiny_elmo_dir):
    """scripts/bench_spacy.py --elmo checks its model with find_model before anything trains. Was: found, then
    refused only when the first ELMo pipeline was initialised."""
    from spacy_elmo.loader import find_model

    with pytest.raises(ValueError) as refused:
        find_model(str(word_baseline_folder))
    assert str(refused.value) == (
        f"{word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the pretraining baseline), not "
        "char ids; spacy-elmo's ElmoLoader needs a char-CNN biLM"
    )
    assert find_model(str(tiny_elmo_dir)).path == Path(tiny_elmo_dir)
