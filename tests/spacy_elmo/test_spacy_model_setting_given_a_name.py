"""The elmo component's ``model`` setting given a biLM's name or folder (``nlp.add_pipe("elmo", config={"model":
"my-elmo"})``, ``model = "..."`` in a config) is refused in one line at ``components -> elmo -> model``, saying where a
name goes: the name_or_path of a loader (was: spaCy's "is not <class 'thinc.model.Model'>", followed by the
component's settings, the pipeline object among them)."""

import pytest
import spacy
from spacy.cli.train import train
from spacy.util import load_model_from_config
from thinc.api import ConfigValidationError

SAYS = (
    "must be a spacy-elmo.ElmoBiLm.v3 block, got the name or folder {model!r}: give a biLM's name or folder as the "
    "name_or_path of the block's loader ([components.{name}.model.loader]; in Python "
    'config={{"model": {{"loader": {{"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": ...}}}}}}) or of '
    "[initialize.components.{name}.loader] (spacy train: --paths.elmo)"
)


@pytest.mark.parametrize("name", ["elmo", "elmo_de"])
def test_a_name_given_as_the_model_in_add_pipe_is_one_line_saying_where_it_goes(tmp_path, name):
    spacy.blank("en").to_disk(tmp_path / "pipeline")  # a spaCy pipeline's folder, say
    nlp = spacy.blank("en")
    with pytest.raises(ConfigValidationError) as info:
        nlp.add_pipe("elmo", name=name, config={"model": str(tmp_path / "pipeline")})
    assert info.value.title == f"Invalid settings of the {name} component"
    assert info.value.errors == [
        {"loc": ["components", name, "model"], "msg": SAYS.format(model=str(tmp_path / "pipeline"), name=name)}
    ]
    assert "\n" not in info.value.errors[0]["msg"] and nlp.pipe_names == []


def elmo_config_with_model(model: str):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    config = nlp.config.copy()
    config["components"]["elmo"]["model"] = model
    return config


def test_a_name_given_as_the_model_in_a_config_is_refused_where_spacy_loads_it():
    with pytest.raises(ConfigValidationError) as info:
        load_model_from_config(elmo_config_with_model("hf-elmo:elmo-2x1024-en"))
    assert info.value.errors[0]["msg"] == SAYS.format(model="hf-elmo:elmo-2x1024-en", name="elmo")


def test_spacy_train_prints_it_as_one_config_error(tmp_path, capsys):
    elmo_config_with_model("hf-elmo:elmo-2x1024-en").to_disk(tmp_path / "config.cfg")
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        train(tmp_path / "config.cfg", tmp_path / "output")
    assert info.value.code == 1
    output = capsys.readouterr().out
    says = SAYS.format(model="hf-elmo:elmo-2x1024-en", name="elmo")
    assert f"components -> elmo -> model\t{says}\n" in output
    assert "thinc.model.Model" not in output and "Traceback" not in output
