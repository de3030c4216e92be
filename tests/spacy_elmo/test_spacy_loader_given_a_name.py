"""A ``loader`` setting given a biLM's name or folder in place of a loader's block (``[components.elmo.model] loader
= "my-elmo"``, ``[initialize.components.elmo] loader = ${paths.elmo}``) is refused in one line at the setting, giving
the block that loads it (was: spaCy's "is not collections.abc.Callable[[], hf_elmo.modeling_elmo.ElmoModel]" or
"Input should be callable", followed by the settings)."""

import pytest
import spacy
from spacy.cli.train import train
from spacy.tokens import DocBin
from spacy.util import load_model_from_config
from thinc.api import ConfigValidationError

from spacy_elmo.bilm import elmo_bilm_v1, elmo_bilm_v2
from tests.spacy_elmo.pipeline_helpers import training_docs
from tests.spacy_elmo.test_spacy_setting_error_names_component import two_listeners_config


def says(folder: object) -> str:
    return (
        f"must be a loader, got the name or folder {str(folder)!r}: give it as the name_or_path of a loader, "
        f'{{"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": "{folder}"}} (in a config file: the block '
        '[...loader] with @misc = "spacy-elmo.ElmoLoader.v1" and name_or_path = ...)'
    )


def test_a_name_as_the_model_s_loader_in_add_pipe_is_one_line_at_the_setting(tiny_elmo_dir):
    with pytest.raises(ConfigValidationError) as info:
        spacy.blank("en").add_pipe("elmo", config={"model": {"loader": str(tiny_elmo_dir)}})
    assert info.value.title == "Invalid settings of spacy-elmo.ElmoBiLm.v3"
    assert info.value.errors == [{"loc": ["components", "elmo", "model", "loader"], "msg": says(tiny_elmo_dir)}]


def test_a_name_as_the_loader_of_a_listener_s_own_biLM_in_a_config_is_refused_at_it():
    config = two_listeners_config()
    mix = config["components"]["ner"]["model"]["tok2vec"]["elmo"]
    bilm = {"@architectures": "spacy-elmo.ElmoBiLm.v3", "loader": "hf-elmo:elmo-2x1024-en"}
    config["components"]["ner"]["model"]["tok2vec"]["elmo"] = {
        "@architectures": "spacy-elmo.ElmoMix.v1",
        "bilm": bilm,
        **{key: value for key, value in mix.items() if key in ("layer_norm", "dropout", "l2")},
    }
    with pytest.raises(ConfigValidationError) as info:
        load_model_from_config(config)
    loc = ["components", "ner", "model", "tok2vec", "elmo", "bilm", "loader"]
    assert info.value.errors == [{"loc": loc, "msg": says("hf-elmo:elmo-2x1024-en")}]


@pytest.mark.parametrize("version", [elmo_bilm_v1, elmo_bilm_v2])
def test_the_earlier_versions_of_the_biLM_refuse_it_too(version):
    with pytest.raises(ConfigValidationError) as info:
        version(loader="my-elmo")
    assert info.value.errors == [{"loc": ["loader"], "msg": says("my-elmo")}]


def test_a_name_as_the_initialize_loader_is_one_line_at_the_setting(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", name="elmo_en")
    nlp.config["initialize"]["components"]["elmo_en"] = {"loader": str(tiny_elmo_dir)}
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize()
    assert info.value.title == "Invalid settings of [initialize.components.elmo_en]"
    assert info.value.errors == [{"loc": ["initialize", "components", "elmo_en", "loader"], "msg": says(tiny_elmo_dir)}]


def test_spacy_train_with_loader_set_to_paths_elmo_prints_one_config_error(tiny_elmo_dir, tmp_path, capsys):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    config = nlp.config.copy()
    config["paths"]["elmo"] = str(tiny_elmo_dir)
    DocBin(docs=training_docs(nlp)).to_disk(tmp_path / "train.spacy")
    config["paths"]["train"] = config["paths"]["dev"] = str(tmp_path / "train.spacy")
    config["initialize"]["components"]["elmo"] = {"loader": "${paths.elmo}"}
    config.to_disk(tmp_path / "config.cfg")
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        train(tmp_path / "config.cfg", tmp_path / "output")
    assert info.value.code == 1
    output = capsys.readouterr().out
    assert f"initialize -> components -> elmo -> loader\t{says(tiny_elmo_dir)}\n" in output
    assert "callable" not in output and "Traceback" not in output
