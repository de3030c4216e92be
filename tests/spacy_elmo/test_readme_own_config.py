"""README's "Your own config": its ```ini blocks, merged into a config of ``spacy init config --pipeline ner`` the
README's way, give a pipeline whose ``tok2vec`` listens to ELMo and trains; every setting the blocks write out is a
setting of the factory or registered function at that block, at its default, so README and the registry cannot
drift; every setting of spacy_elmo's registered functions is named in README; and a misspelt setting is spaCy's
config error naming it, as README says."""

import inspect
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
import spacy
from spacy.cli.init_config import init_config
from spacy.language import Language
from spacy.util import load_model_from_config, registry
from thinc.api import Config, ConfigValidationError

from tests.spacy_elmo.pipeline_helpers import training_examples
from tests.test_readme import README, readme_blocks

TEXT = README.read_text(encoding="utf-8")
(BLOCKS,) = [block.code for block in readme_blocks(TEXT, "ini") if block.id == "your-own-config"]


def _registered(section: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(registry, name, section) of ``section`` and every section in it that names a registered function."""
    found = [(key[1:], value, section) for key, value in section.items() if key.startswith("@")]
    for value in section.values():
        if isinstance(value, dict):
            found += _registered(value)
    return found


def test_every_setting_the_blocks_write_out_is_the_default_of_the_function_at_that_block():
    blocks = Config().from_str(BLOCKS)  # interpolated: name_or_path = ${paths.elmo}, null
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    assert blocks["components"]["elmo"] == nlp.config["components"]["elmo"]  # the factory's defaults, its model's
    functions = _registered({"tok2vec": blocks["components"]["tok2vec"], "initialize": blocks["initialize"]})
    assert {name for _, name, _ in functions} == {
        "spacy-elmo.ElmoTok2Vec.v1",
        "spacy-elmo.ElmoMixListener.v1",
        "spacy-elmo.ElmoLoader.v1",
    }
    for kind, name, section in functions:
        parameters = inspect.signature(registry.get(kind, name)).parameters
        assert set(section) - {f"@{kind}"} <= set(parameters), name
        defaults = {key: p.default for key, p in parameters.items() if p.default is not inspect.Parameter.empty}
        assert {key: section.get(key) for key in defaults} == defaults, name


def _spacy_elmo_functions() -> list[tuple[str, Any]]:
    """(name, function) of every spacy_elmo entry point spaCy registers: architectures, misc and the factory."""
    groups = ("spacy_architectures", "spacy_misc", "spacy_factories")
    return [
        (point.name, point.load())
        for group in groups
        for point in entry_points(group=group)
        if point.value.startswith("spacy_elmo.")
    ]


def test_every_registered_function_and_each_of_its_settings_is_named_in_the_readme():
    functions = _spacy_elmo_functions()
    assert len(functions) == 8  # 6 architectures, the loader, the factory
    for name, function in functions:
        assert f"`{name}`" in TEXT or f'"{name}"' in TEXT, name
        for setting in inspect.signature(function).parameters:
            if setting not in ("nlp", "name"):  # the factory's, which spaCy passes
                assert f"`{setting}`" in TEXT or f".{setting}]`" in TEXT, (
                    f"{name}: {setting}"
                )  # `[components.elmo.model]`
    assert "`loader`" in TEXT  # ElmoComponent.initialize's setting, [initialize.components.elmo]


def _written_into(config: dict[str, Any], blocks: dict[str, Any]) -> None:
    """What README says to do by hand: each setting of ``blocks`` written into ``config``, its other settings and
    sections kept (``Config.merge`` would drop the ``embed`` and ``encode`` under the tok2vec model it changes)."""
    for key, value in blocks.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            _written_into(config[key], value)
        else:
            config[key] = value


def _merged(tmp_path: Path) -> Config:
    """``spacy init config --pipeline ner``'s config (as the command writes it) with the README's blocks written in."""
    init_config(lang="en", pipeline=["ner"], optimize="efficiency", gpu=False, silent=True).to_disk(
        tmp_path / "config.cfg"
    )
    config = Config().from_disk(tmp_path / "config.cfg", interpolate=False)
    _written_into(config, Config().from_str(BLOCKS, interpolate=False))
    return config


def _nlp(config: Config, elmo: Path) -> Language:
    return load_model_from_config(
        Config().from_str(config.to_str(), overrides={"paths.elmo": str(elmo)}), auto_fill=True
    )


def test_the_blocks_merged_into_spacy_s_ner_config_make_its_tok2vec_listen_to_elmo_and_train(tmp_path, tiny_elmo_dir):
    nlp = _nlp(_merged(tmp_path), tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    assert nlp.pipe_names == ["elmo", "tok2vec", "ner"]
    assert nlp.get_pipe("elmo").listening_components == ["tok2vec"]
    losses: dict[str, float] = {}
    for _ in range(2):
        nlp.update(examples, sgd=optimizer, losses=losses)
    assert losses["ner"] > 0 and losses["tok2vec"] > 0
    doc = nlp("Alice lives in Paris .")
    assert doc._.elmo.width == 16  # the biLM --paths.elmo named (the shipped model's is 256)
    assert doc.tensor.shape == (5, 96)  # the tok2vec's own encode, concatenating ELMo with its own embed


@pytest.mark.parametrize(
    "section, misspelt, meant",
    [
        ("components.elmo", "cache_md", "cache_mb"),
        ("components.elmo.model", "frozn", "frozen"),
        ("components.tok2vec.model.elmo", "dropot", "dropout"),
        ("initialize.components.elmo.loader", "name_or_pth", "name_or_path"),
    ],
)
def test_a_misspelt_setting_is_spacy_s_config_error_naming_it(tmp_path, tiny_elmo_dir, section, misspelt, meant):
    config = _merged(tmp_path)
    block = config
    for key in section.split("."):
        block = block[key]
    block[misspelt] = block.pop(meant)
    with pytest.raises(ConfigValidationError) as info:
        _nlp(config, tiny_elmo_dir).initialize(lambda: training_examples(spacy.blank("en")))
    assert [error["msg"] for error in info.value.errors if misspelt in error["loc"]] == [
        f"unexpected argument: '{misspelt}'"
    ]


def _defaults(name: str) -> dict[str, Any]:
    parameters = inspect.signature(registry.get("architectures", name)).parameters.items()
    return {key: p.default for key, p in parameters if p.default is not inspect.Parameter.empty}


def test_the_settings_readme_calls_the_same_have_the_same_defaults():
    """README's Settings: ``ElmoMix.v1`` takes the listener's mix settings, and ``ElmoBiLm.v2`` is ``v3`` with
    ``tokens_per_batch`` spelt ``token_budget`` (``v1`` the same without the precision settings)."""
    listener = _defaults("spacy-elmo.ElmoMixListener.v1")
    assert _defaults("spacy-elmo.ElmoMix.v1") == {key: listener[key] for key in ("layer_norm", "dropout", "l2")}
    v3 = _defaults("spacy-elmo.ElmoBiLm.v3")
    v2 = {
        "tokens_per_batch" if key == "token_budget" else key: value
        for key, value in _defaults("spacy-elmo.ElmoBiLm.v2").items()
    }
    assert v2 == v3
    v1 = _defaults("spacy-elmo.ElmoBiLm.v1")
    assert (
        v1
        == {key: v3.get("tokens_per_batch" if key == "token_budget" else key) for key in v1}
        == {
            "frozen": True,
            "token_budget": 4096,
            "loader": None,
        }
    )


def test_spacy_s_textcat_config_has_no_tok2vec_to_listen_to_as_the_readme_says():
    config = init_config(lang="en", pipeline=["textcat"], optimize="efficiency", gpu=False, silent=True)
    assert config["nlp"]["pipeline"] == ["textcat"]
    assert config["components"]["textcat"]["model"]["@architectures"] == "spacy.TextCatBOW.v3"
    assert "`spacy.TextCatBOW.v3`" in TEXT and "tok2vec" not in config["components"]["textcat"]["model"]
