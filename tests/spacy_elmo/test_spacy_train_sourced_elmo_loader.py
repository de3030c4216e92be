"""``spacy train`` of a config that sources its ``elmo`` component from a trained pipeline and names a
model for it (``--paths.elmo``): spaCy initialises no sourced component, so the model was never
loaded and the pipeline trained with the sourced biLM, silently. Refused before training, naming both."""

import pytest
import spacy
from spacy.cli.train import train
from spacy.tokens import DocBin
from spacy.training.initialize import init_nlp
from thinc.api import Config, ConfigValidationError

from spacy_elmo.bilm import get_elmo
from tests.conftest import REPO
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, tiny_elmo, training_docs, training_examples

CONFIG = REPO / "spacy_elmo" / "configs" / "ner.cfg"


def sourcing_config(tmp_path, tiny_elmo_dir, frozen: bool):
    """ner.cfg with ``elmo`` sourced from a pipeline trained on the tiny biLM, and overrides that train on a
    few docs (``elmo`` frozen and annotating, or trained as a sourced component is: resumed)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    nlp.to_disk(tmp_path / "trained")
    config = Config().from_disk(CONFIG, interpolate=False)
    config["components"]["elmo"] = {"source": str(tmp_path / "trained")}
    config.to_disk(tmp_path / "sourced.cfg")
    DocBin(docs=training_docs(spacy.blank("en"))).to_disk(tmp_path / "train.spacy")
    overrides = {"paths.train": str(tmp_path / "train.spacy"), "paths.dev": str(tmp_path / "train.spacy")}
    overrides |= {"training.max_steps": 2, "components.ner.model.tok2vec.encode.width": 16}
    if frozen:
        overrides |= {"training.frozen_components": ["elmo"], "training.annotating_components": ["elmo"]}
    return tmp_path / "sourced.cfg", overrides


@pytest.mark.parametrize("frozen", [True, False])
def test_a_model_named_for_a_sourced_elmo_is_refused_naming_both(tiny_elmo_dir, tmp_path, frozen):
    path, overrides = sourcing_config(tmp_path, tiny_elmo_dir, frozen)
    tiny_elmo(seed=1).save_pretrained(tmp_path / "other-elmo")
    with pytest.raises(ConfigValidationError) as info:  # was: trained with the sourced biLM, silently
        init_nlp(Config().from_disk(path, overrides={**overrides, "paths.elmo": str(tmp_path / "other-elmo")}))
    assert info.value.title == "Invalid settings of [initialize.components.elmo]"
    (error,) = info.value.errors
    assert error["loc"] == ["loader"]
    other, trained = repr(str(tmp_path / "other-elmo")), repr(str(tmp_path / "trained"))
    assert error["msg"] == (
        f"it names the ELMo model {other}, but the elmo component 'elmo' is sourced from {trained}, and spaCy "
        f"initialises no sourced component, so 'elmo' would keep the sourced biLM and never load {other}: leave the "
        "model out (no --paths.elmo), or make 'elmo' anew (factory = \"elmo\" in place of source) to load it"
    )
    nlp = init_nlp(Config().from_disk(path, overrides=overrides))  # no model named: the sourced biLM, as meant
    assert get_elmo(nlp.get_pipe("elmo").model).config.projection_dim == 8


def test_spacy_train_prints_it_as_a_config_error_before_training(tiny_elmo_dir, tmp_path, capsys):
    path, overrides = sourcing_config(tmp_path, tiny_elmo_dir, frozen=True)
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        train(path, tmp_path / "output", overrides={**overrides, "paths.elmo": str(tiny_elmo_dir)})
    assert info.value.code == 1
    output = capsys.readouterr().out
    assert "Invalid settings of [initialize.components.elmo]" in output and "Training pipeline" not in output
    assert not (tmp_path / "output" / "model-last").exists()
