"""The biLM in spaCy pipelines: resolved like everywhere else (spacy-elmo.ElmoLoader.v1), float32
whatever the stored dtype, saved as float32, quiet, clear errors, and `spacy package` requires
the hf-elmo distribution."""

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import spacy
import torch
from safetensors import safe_open
from thinc.api import ConfigValidationError, Linear

from hf_elmo.loading import InvalidModelError
from spacy_elmo.bilm import get_elmo
from tests.spacy_elmo.pipeline_helpers import loader_settings, tiny_elmo


@pytest.fixture(scope="module")
def fp16_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-fp16")
    tiny_elmo().to(torch.float16).save_pretrained(folder)
    return folder


def _nlp(name_or_path) -> spacy.Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(name_or_path)
    nlp.initialize()
    return nlp


def _saved_pipeline(tmp_path: Path) -> None:
    """A pipeline on a tiny random biLM, saved to ``tmp_path / "pipeline"``."""
    folder = tmp_path / "tiny"
    tiny_elmo().save_pretrained(folder)
    _nlp(folder).to_disk(tmp_path / "pipeline")


def _dtype(nlp) -> torch.dtype:
    return get_elmo(nlp.get_pipe("elmo").model).dtype


def test_fp16_weights_run_and_are_saved_in_float32(fp16_folder, tmp_path):
    nlp = _nlp(fp16_folder)
    assert _dtype(nlp) == torch.float32
    nlp.to_disk(tmp_path / "pipeline")
    with safe_open(str(tmp_path / "pipeline" / "elmo" / "bilm" / "model.safetensors"), "pt") as saved:
        assert {saved.get_tensor(k).dtype for k in saved.keys()} == {torch.float32}
    assert _dtype(spacy.load(tmp_path / "pipeline")) == torch.float32
    assert _dtype(spacy.blank("en").from_config(nlp.config).from_bytes(nlp.to_bytes())) == torch.float32


def test_the_loader_accepts_the_shipped_model_name():
    nlp = _nlp("hf-elmo:elmo-2x1024-en")
    assert _dtype(nlp) == torch.float32
    assert nlp("he hit it with a stick")._.elmo.layers.shape == (3, 6, 256)


def test_a_missing_paths_elmo_folder_is_named_not_taken_for_a_repo_id(tmp_path):
    with pytest.raises(ConfigValidationError) as info:  # spacy train prints it without a traceback
        _nlp("my-elmo/")
    (error,) = info.value.errors
    assert "'my-elmo/': no such local file or folder" in error["msg"]


def test_a_trained_pipeline_given_as_the_model_names_the_biLM_folder_inside_it(tmp_path):
    _saved_pipeline(tmp_path)
    with pytest.raises(ConfigValidationError) as info:  # as spacy train --paths.elmo PIPELINE
        _nlp(tmp_path / "pipeline")
    (error,) = info.value.errors
    assert error["msg"] == (
        f"{tmp_path / 'pipeline'} is a spaCy pipeline, not an ELMo model folder: give the biLM folder its elmo "
        f"component saved instead: {tmp_path / 'pipeline' / 'elmo' / 'bilm'}"
    )
    assert _nlp(tmp_path / "pipeline" / "elmo" / "bilm")("a b")._.elmo.width == 16


def test_a_pipeline_saved_before_initialize_given_as_the_model_says_it_holds_no_biLM(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.to_disk(tmp_path / "pipeline")
    with pytest.raises(ConfigValidationError) as info:
        _nlp(tmp_path / "pipeline")
    (error,) = info.value.errors
    assert error["msg"] == (
        f"{tmp_path / 'pipeline'} is a spaCy pipeline, not an ELMo model folder: its elmo component was saved "
        "before nlp.initialize(), without biLM weights: give an ELMo model folder, Hub id or shipped model name instead"
    )


def test_get_elmo_of_a_model_other_than_the_bilm_names_it():
    with pytest.raises(TypeError, match=r"^expected an elmo-bilm Thinc model \(spacy-elmo.ElmoBiLm\), got 'linear'$"):
        get_elmo(Linear(2, 2))


def test_spacy_load_names_a_corrupt_bilm_file(tmp_path):
    _saved_pipeline(tmp_path)
    weights = tmp_path / "pipeline" / "elmo" / "bilm" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    with pytest.raises(InvalidModelError, match=f"{weights} is not a readable safetensors file"):
        spacy.load(tmp_path / "pipeline")


QUIET = """
import sys
import spacy
nlp = spacy.blank("en")
nlp.add_pipe("elmo")
nlp.config["initialize"]["components"]["elmo"] = {"loader": {"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": sys.argv[1]}}
nlp.initialize()
nlp.to_disk(sys.argv[2])
spacy.load(sys.argv[2])
print("done")
"""


def test_loading_and_saving_the_pipeline_print_nothing(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", QUIET, "hf-elmo:elmo-2x1024-en", str(tmp_path / "pipeline")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "done" and result.stderr == ""


def test_spacy_package_requires_the_hf_elmo_distribution(tmp_path):
    from importlib.metadata import version

    _saved_pipeline(tmp_path)
    (tmp_path / "packages").mkdir()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy",
            "package",
            str(tmp_path / "pipeline"),
            str(tmp_path / "packages"),
            "--build",
            "none",
            "--name",
            "elmo_test",
            "--version",
            "0.0.1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    meta = json.loads((tmp_path / "packages" / "en_elmo_test-0.0.1" / "meta.json").read_text())
    major, minor = version("hf-elmo").split(".")[:2]
    assert f"hf-elmo>={major}.{minor}.0,<{major}.{int(minor) + 1}.0" in meta["requirements"]
    assert not any(r.startswith("elmo") for r in meta["requirements"])


@pytest.mark.parametrize(
    "pre_tokenizer, lang, warns", [("spacy:en", "de", True), ("spacy:en", "en", False), ("whitespace", "de", False)]
)
def test_a_biLM_whose_corpus_was_split_by_another_language_s_rules_warns_when_the_pipeline_loads_it(
    tmp_path, pre_tokenizer, lang, warns
):
    """A pipeline of one language given a biLM whose corpus was split by spaCy's rules of another
    (``ElmoConfig.pre_tokenizer``, e.g. the shipped English model in ``spacy.blank("de")``) says so
    when it loads the biLM: the pipeline's tokens are not the words the biLM learnt (was: nothing,
    the vectors silently those of differently split words). A model of whitespace-split text
    (converted originals) names no rules to compare."""
    elmo = tiny_elmo()
    elmo.config.pre_tokenizer = pre_tokenizer
    elmo.save_pretrained(tmp_path / "tiny")
    nlp = spacy.blank(lang)
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tmp_path / "tiny")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nlp.initialize()
    said = [str(w.message) for w in caught if "rules" in str(w.message)]
    assert said == (
        [
            "the elmo component 'elmo' loaded a biLM whose training text was split by spaCy's 'en' rules "
            "(its pre_tokenizer 'spacy:en'), but this pipeline's tokenizer splits by the 'de' rules, so its "
            "tokens are not the words the biLM learnt and their vectors are poorer: use a pipeline of language "
            "'en' (spacy.blank(\"en\"), [nlp] lang = \"en\"), or a biLM trained on text split by the 'de' rules"
        ]
        if warns
        else []
    )
