"""Without a model given, the ``elmo`` component loads the shipped one; a wrong path is one error
line naming it, in Python and from ``spacy train``."""

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spacy
import torch
from spacy.tokens import DocBin
from thinc.api import ConfigValidationError

from hf_elmo import batch_to_ids
from hf_elmo.modeling_lm import ElmoForBidirectionalLM
from hf_elmo.pretrained import DEFAULT_MODEL, DEFAULT_MODEL_NAME
from tests.conftest import REPO
from tests.spacy_elmo.pipeline_helpers import loader_settings, training_docs

CONFIGS = REPO / "spacy_elmo" / "configs"
WRONG = "/nonexistent/elmo-model"


def shipped_layers(words):
    """All L+1 layers of one sentence from the shipped model loaded directly: (L+1, n, 2P)."""
    elmo = ElmoForBidirectionalLM.from_pretrained(DEFAULT_MODEL, dtype=torch.float32).elmo.eval()
    with torch.no_grad():
        return torch.stack(elmo(input_ids=batch_to_ids([words])).hidden_states)[:, 0].numpy()


def test_add_pipe_without_a_loader_loads_the_shipped_model_in_float32_and_logs_it_once(caplog):
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    with caplog.at_level(logging.WARNING, logger="spacy"):
        nlp.initialize()
    shipped = [r for r in caplog.records if "using the shipped model" in r.getMessage()]
    assert len(shipped) == 1 and DEFAULT_MODEL_NAME in shipped[0].getMessage()
    elmo = nlp.get_pipe("elmo").model.shims[0].elmo
    assert next(elmo.parameters()).dtype == torch.float32
    doc = nlp("The bank raised its rates.")
    np.testing.assert_allclose(doc._.elmo.layers, shipped_layers([t.text for t in doc]), atol=1e-5)


def test_a_wrong_path_is_one_config_error_line_naming_it():
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(Path(WRONG))
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize()
    (error,) = info.value.errors
    assert error["loc"] == ["initialize", "components", "elmo", "loader"]
    assert WRONG in error["msg"] and "\n" not in error["msg"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "train.spacy"
    DocBin(docs=training_docs(spacy.blank("en"))).to_disk(path)
    return path


def spacy_train(config: str, corpus: Path, output: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "spacy",
        "train",
        str(CONFIGS / config),
        "--output",
        str(output),
        "--paths.train",
        str(corpus),
        "--paths.dev",
        str(corpus),
        "--training.max_steps",
        "2",
        "--training.eval_frequency",
        "1",
        "--components.ner.model.tok2vec.encode.width",
        "16",
        "--components.ner.model.tok2vec.encode.depth",
        "1",
        *extra,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def test_spacy_train_without_paths_elmo_trains_on_the_shipped_model(corpus, tmp_path):
    run = spacy_train("ner.cfg", corpus, tmp_path / "out")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert "using the shipped model" in run.stderr
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.get_pipe("elmo").model.get_dim("nO") == 256  # the shipped model's 2P


def test_spacy_train_with_a_wrong_elmo_path_prints_the_error_without_a_traceback(corpus, tmp_path):
    run = spacy_train("ner.cfg", corpus, tmp_path / "out", "--paths.elmo", WRONG)
    assert run.returncode == 1
    assert "Traceback" not in run.stdout + run.stderr
    assert any(f"no model {WRONG!r}: no such local file or folder" in line for line in run.stdout.splitlines())
