"""A bad setting of a registered function of spacy_elmo (a listener's scalar mix, the biLM, the elmo component's cache)
in a pipeline's config is refused at its path in the config, ``components -> NAME -> ... -> setting``, as spaCy's own
validation names its errors: in a pipeline of two listeners, each with a mix of the same settings, the user sees which
one (was: ``layer_norm``, ``dropout``, ``cache_mb`` alone)."""

import pytest
import spacy
from spacy.cli.train import train
from spacy.util import load_model_from_config, registry
from thinc.api import Config, ConfigValidationError, Model, concatenate

from tests.spacy_elmo.pipeline_helpers import ner_config, textcat_config

MIX = ["model", "tok2vec", "elmo"]


def two_listeners_config() -> Config:
    """The config of a pipeline whose ner and textcat each listen to the elmo component with a mix of their own."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.add_pipe("textcat", config=textcat_config())
    return nlp.config.copy()


def set_at(config: Config, path: list[str], value: object) -> None:
    block = config
    for key in path[:-1]:
        block = block[key]
    block[path[-1]] = value


@pytest.mark.parametrize(
    "path, value, says",
    [
        (
            ["components", "ner", *MIX, "layer_norm"],
            "bogus",
            "must be one of (None, 'batch', 'token'), got the str 'bogus'",
        ),
        (["components", "textcat", *MIX, "dropout"], 2, "must be in [0, 1), got the int 2"),
        (["components", "textcat", *MIX, "l2"], -1.0, "must be a finite number >= 0, got the float -1.0"),
        (
            ["components", "elmo", "cache_mb"],
            -1,
            "must be a finite number of MiB >= 0 (0 disables the cache), got the int -1",
        ),
        (
            ["components", "elmo", "model", "tokens_per_batch"],
            0,
            "must be a whole number >= 1 of padded tokens, got the int 0",
        ),
    ],
    ids=["ner-layer_norm", "textcat-dropout", "textcat-l2", "cache_mb", "tokens_per_batch"],
)
def test_a_bad_setting_in_a_pipeline_of_two_listeners_is_refused_at_its_path(path, value, says):
    config = two_listeners_config()
    set_at(config, path, value)
    with pytest.raises(ConfigValidationError) as info:
        load_model_from_config(config)
    assert info.value.errors == [{"loc": path, "msg": says}]
    assert " -> ".join(path) in str(info.value)


def test_spacy_train_prints_the_component_of_a_bad_mix_setting_in_one_line(tmp_path, capsys):
    config = two_listeners_config()
    set_at(config, ["components", "textcat", *MIX, "dropout"], 2)
    config.to_disk(tmp_path / "config.cfg")
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        train(tmp_path / "config.cfg", tmp_path / "output")
    assert info.value.code == 1
    output = capsys.readouterr().out
    assert "components -> textcat -> model -> tok2vec -> elmo -> dropout\tmust be in [0, 1), got the int 2\n" in output
    assert "Training pipeline" not in output and "Traceback" not in output


def test_the_cache_mb_of_one_of_two_elmo_components_is_refused_at_that_one():
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", name="elmo_a")
    with pytest.raises(ConfigValidationError) as info:
        nlp.add_pipe("elmo", name="elmo_b", config={"cache_mb": -1})
    assert info.value.errors[0]["loc"] == ["components", "elmo_b", "cache_mb"]


def test_a_setting_of_a_function_called_alone_is_refused_at_its_name():
    with pytest.raises(ConfigValidationError) as info:
        registry.resolve({"x": {"@architectures": "spacy-elmo.ElmoMixListener.v1", "layer_norm": "bogus"}})
    assert (info.value.title, info.value.errors[0]["loc"]) == (
        "Invalid settings of the ELMo scalar mix",
        ["layer_norm"],
    )


@registry.architectures("test.TwoElmoMixes.v1")
def two_mixes(first: Model, second: Model) -> Model:
    return concatenate(first, second)


def test_a_bad_setting_of_one_of_two_mixes_of_a_component_is_titled_with_the_component():
    """The setting's block cannot be told from the function's call: the title names the component."""
    config = two_listeners_config()
    listener = dict(config["components"]["textcat"]["model"]["tok2vec"]["elmo"])
    both = {"@architectures": "test.TwoElmoMixes.v1", "first": listener, "second": {**listener, "dropout": 2}}
    set_at(config, ["components", "textcat", *MIX], both)
    with pytest.raises(ConfigValidationError) as info:
        load_model_from_config(config)
    assert (info.value.title, info.value.errors[0]["loc"]) == (
        "Invalid settings of the ELMo scalar mix in component 'textcat'",
        ["dropout"],
    )


def test_a_setting_inside_a_setting_is_named_as_the_check_names_it_after_its_block():
    """``grad_scaler_config.init_scale``, as the biLM's check names it alone (was, one commit: split at the dot)."""
    config = two_listeners_config()
    set_at(config, ["components", "elmo", "model", "grad_scaler_config"], {"init_scale": "x"})
    with pytest.raises(ConfigValidationError) as info:
        load_model_from_config(config)
    assert info.value.errors == [
        {
            "loc": ["components", "elmo", "model", "grad_scaler_config.init_scale"],
            "msg": "must be a finite number > 0, got the str 'x'",
        }
    ]
