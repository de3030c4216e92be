"""``spacy train`` of a config that sources a listening component and its ``elmo`` component under
another name: spaCy initialises no sourced component, so the listener's upstream, which names no elmo
component of the pipeline, was found at step 0 of the training, in a traceback. Refused as a config
error before training, as ``nlp.initialize()`` refuses it."""

import pytest
from spacy.training.initialize import init_nlp
from thinc.api import Config, ConfigValidationError

from tests.spacy_elmo.test_spacy_train_sourced_elmo_loader import sourcing_config


def test_a_sourced_listener_of_an_elmo_component_sourced_under_another_name_is_refused_before_training(
    tiny_elmo_dir, tmp_path
):
    path, overrides = sourcing_config(tmp_path, tiny_elmo_dir, frozen=True)
    config = Config().from_disk(path, interpolate=False)
    config["nlp"]["pipeline"] = ["elmo2", "ner"]
    config["components"] = {
        "elmo2": {"source": str(tmp_path / "trained"), "component": "elmo"},
        "ner": {"source": str(tmp_path / "trained")},
    }
    del config["initialize"]["components"]["elmo"]
    config.to_disk(path)
    overrides |= {"training.frozen_components": ["elmo2"], "training.annotating_components": ["elmo2"]}
    del overrides["components.ner.model.tok2vec.encode.width"]
    with pytest.raises(ConfigValidationError) as info:  # was: a ValueError at step 0 of spacy train
        init_nlp(Config().from_disk(path, overrides=overrides))
    assert info.value.title == "Component 'ner' gets no ELMo layers"
    (error,) = info.value.errors
    assert error["loc"] == ["components", "ner"]
    assert error["msg"] == (
        "its ELMo listener's upstream 'elmo' is no elmo component; the pipeline's are 'elmo2': set upstream to one "
        'of them (or "*": any)'
    )
    config["nlp"]["pipeline"] = ["elmo", "ner"]
    config["components"]["elmo"] = config["components"].pop("elmo2")
    config.to_disk(path)
    kept = {**overrides, "training.frozen_components": ["elmo"], "training.annotating_components": ["elmo"]}
    assert init_nlp(Config().from_disk(path, overrides=kept)).pipe_names == ["elmo", "ner"]  # its own name: no error
