"""The shipped configs trained for a few steps through the real ``spacy train`` CLI, and analysed by
``spacy debug model``."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spacy
import torch
from spacy.tokens import DocBin

from spacy_elmo.layer_weights import mix_weights, plot_layer_weights
from tests.conftest import REPO
from tests.spacy_elmo.pipeline_helpers import tiny_elmo, training_docs

CONFIGS = REPO / "spacy_elmo" / "configs"
STEPS, EVAL_EVERY = 16, 4


def small_overrides(task: str) -> list:
    prefix = f"--components.{task}.model"
    overrides = [
        f"{prefix}.tok2vec.encode.width",
        "16",
        f"{prefix}.tok2vec.encode.depth",
        "1",
        "--training.max_steps",
        str(STEPS),
        "--training.eval_frequency",
        str(EVAL_EVERY),
        "--training.optimizer.learn_rate",
        "0.01",
        "--training.dropout",
        "0.0",
        f"{prefix}.tok2vec.elmo.dropout",
        "0.0",
    ]
    if task == "ner":
        overrides += [f"{prefix}.hidden_width", "16"]
    return overrides


def losses_from_console(output: str, task: str) -> list:
    """The ``LOSS <TASK>`` column of spaCy's console table, one value per evaluation."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in output.splitlines()]
    header = next(line for line in lines if line.startswith("E ") and "LOSS" in line)
    columns = re.split(r"\s{2,}", header.strip())
    index = columns.index(f"LOSS {task.upper()}")
    rows = [line.split() for line in lines if re.match(r"^\s*\d+\s+\d+\s", line)]
    return [float(row[index]) for row in rows]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    DocBin(docs=training_docs(spacy.blank("en"))).to_disk(folder / "train.spacy")
    return folder / "train.spacy"


@pytest.mark.parametrize("task", ["ner", "textcat"])
def test_spacy_train_cli_learns_the_mix_and_keeps_the_frozen_biLM(task, corpus, tiny_elmo_dir, tmp_path):
    output = tmp_path / "trained"
    command = [
        sys.executable,
        "-m",
        "spacy",
        "train",
        str(CONFIGS / f"{task}.cfg"),
        "--output",
        str(output),
        "--paths.train",
        str(corpus),
        "--paths.dev",
        str(corpus),
        "--paths.elmo",
        str(tiny_elmo_dir),
        *small_overrides(task),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    losses = losses_from_console(run.stdout, task)
    assert len(losses) == STEPS // EVAL_EVERY + 1
    assert losses[-1] < losses[1], losses  # rows after the first sum EVAL_EVERY steps each

    nlp = spacy.load(output / "model-last")
    (mix,) = mix_weights(nlp)
    assert mix.component == task
    assert np.abs(mix.weights - 1 / 3).max() > 1e-4 or abs(mix.gamma - 1.0) > 1e-4
    trained = nlp.get_pipe("elmo").model.shims[0].elmo.state_dict()
    original = tiny_elmo().state_dict()
    assert all(torch.equal(trained[k], original[k]) for k in original)

    plot_layer_weights(nlp, tmp_path / "weights.png")
    assert (tmp_path / "weights.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    texts = [doc.text for doc in training_docs(nlp)]
    nlp.to_disk(tmp_path / "again")
    reloaded = spacy.load(tmp_path / "again")
    for a, b in zip(nlp.pipe(texts), reloaded.pipe(texts)):
        assert [(e.start, e.end, e.label_) for e in a.ents] == [(e.start, e.end, e.label_) for e in b.ents]
        assert a.cats == pytest.approx(b.cats, abs=1e-6)


def test_spacy_train_cli_fine_tunes_the_biLM_when_it_is_not_frozen(corpus, tiny_elmo_dir, tmp_path):
    """``[components.elmo.model] frozen = false`` through the real CLI, over sub-batches
    (``accumulate_gradient``): the biLM's weights move, the loss falls, and the saved pipeline holds
    the tuned biLM and predicts as the trained one."""
    output = tmp_path / "trained"
    command = [sys.executable, "-m", "spacy", "train", str(CONFIGS / "ner.cfg"), "--output", str(output)]
    paths = ["--paths.train", str(corpus), "--paths.dev", str(corpus), "--paths.elmo", str(tiny_elmo_dir)]
    tuning = ["--components.elmo.model.frozen", "false", "--training.accumulate_gradient", "2"]
    run = subprocess.run(command + paths + small_overrides("ner") + tuning, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    losses = losses_from_console(run.stdout, "ner")
    assert losses[-1] < losses[1], losses

    nlp = spacy.load(output / "model-last")
    trained = nlp.get_pipe("elmo").model.shims[0].elmo.state_dict()
    original = tiny_elmo().state_dict()
    moved = [k for k in original if not torch.equal(trained[k], original[k])]
    assert {k.split(".")[0] for k in moved} == {"char_cnn", "bilm"}, moved  # the token layer and the LSTMs
    texts = [doc.text for doc in training_docs(nlp)]
    again = spacy.load(output / "model-last")
    for a, b in zip(nlp.pipe(texts), again.pipe(texts)):
        assert [(e.start, e.end, e.label_) for e in a.ents] == [(e.start, e.end, e.label_) for e in b.ents]
        assert np.allclose(a._.elmo.layers, b._.elmo.layers, atol=1e-6)


@pytest.mark.parametrize("task", ["ner", "textcat"])
def test_spacy_debug_model_trains_a_listening_component_on_the_layers_of_its_elmo_component(
    task, corpus, tiny_elmo_dir
):
    """``spacy debug model`` updates the upstream of spaCy's own listeners only; the ELMo listener
    reads what its elmo component predicts and says so (was: 'ELMo listener: no layers for this
    training batch', a traceback, for every shipped config)."""
    command = [sys.executable, "-m", "spacy", "debug", "model", str(CONFIGS / f"{task}.cfg"), task]
    paths = ["--paths.train", str(corpus), "--paths.dev", str(corpus), "--paths.elmo", str(tiny_elmo_dir)]
    run = subprocess.run(command + paths + small_overrides(task), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    output = " ".join(run.stdout.split())  # wasabi wraps its lines
    assert "Initialized the model with the training corpus" in output
    assert "the listener reads the layers 'elmo' predicts; no gradient reaches the biLM" in output
    assert "Successfully ended analysis" in output
