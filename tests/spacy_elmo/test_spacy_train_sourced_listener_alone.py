"""``spacy train`` of a config that sources a listening component (``ner``) from an elmo pipeline
without its ``elmo`` component: spaCy initialises no sourced component and resumes it, so no check
ran, and its listener found no layers at step 0 of the training, in a traceback. Refused as a config
error before training, naming the component and the elmo component to source with it."""

import pytest
import spacy
from spacy.language import Language
from spacy.training.initialize import init_nlp
from thinc.api import Config, ConfigValidationError, Model

from tests.spacy_elmo.pipeline_helpers import ner_config
from tests.spacy_elmo.test_spacy_train_sourced_elmo_loader import sourcing_config


def test_a_sourced_listener_without_its_elmo_component_is_refused_before_training(tiny_elmo_dir, tmp_path):
    path, overrides = sourcing_config(tmp_path, tiny_elmo_dir, frozen=False)
    config = Config().from_disk(path, interpolate=False)
    config["nlp"]["pipeline"] = ["ner"]
    config["components"] = {"ner": {"source": str(tmp_path / "trained")}}
    del config["initialize"]["components"]["elmo"]
    config.to_disk(path)
    del overrides["components.ner.model.tok2vec.encode.width"]
    with pytest.raises(ConfigValidationError) as info:  # was: a ValueError at step 0 of spacy train
        init_nlp(Config().from_disk(path, overrides=overrides))
    assert info.value.title == "Component 'ner' gets no ELMo layers"
    (error,) = info.value.errors
    assert error["loc"] == ["components", "ner"]
    assert error["msg"] == (
        "its ELMo listener needs an elmo component before it, and the pipeline has none: spaCy sources 'ner' without "
        "the elmo component it was trained with: source that too, listing 'elmo' before 'ner' in [nlp] pipeline, "
        f"with [components.elmo] source = {str(tmp_path / 'trained')!r}"
    )
    config["nlp"]["pipeline"] = ["elmo", "ner"]
    config["components"]["elmo"] = {"source": str(tmp_path / "trained")}
    config.to_disk(path)
    assert init_nlp(Config().from_disk(path, overrides=overrides)).pipe_names == ["elmo", "ner"]  # as it says: no error


def test_a_spacy_without_resume_training_turns_the_check_off(monkeypatch):
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", config=ner_config())
    resume_training = Language.resume_training
    with pytest.raises(ConfigValidationError):  # the check, on: the pipeline has no elmo component
        resume_training(nlp)
    monkeypatch.delattr(Language, "resume_training")  # a spaCy that names it otherwise: the check is off
    resume_training(nlp)
    assert isinstance(nlp.get_pipe("ner")._rehearsal_model, Model)
