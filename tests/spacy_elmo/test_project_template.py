"""The weasel project template ``project/project.yml`` run on a small slice of the corpora: a fast
convert + 2-step training, and (slow) the whole NER workflow. The project is copied to a temporary
folder: nothing is written into the repository."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from tests.conftest import REPO

PROJECT = REPO / "project"


def weasel(project: Path, command_name: str, *overrides: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "weasel", "run", command_name, str(project), *overrides]
    return subprocess.run(command, capture_output=True, text=True, timeout=1200)


def slice_vars(shared: Path, elmo: str) -> list:
    conll, sst = shared / "data" / "conll2003-en", shared / "data" / "sst" / "sentence-level"
    values = {
        "repo": REPO,
        "elmo": elmo,
        "max_sentences": 12,
        "max_steps": 2,
        "eval_frequency": 1,
        "conll_train": conll / "eng.train",
        "conll_dev": conll / "eng.testa",
        "conll_test": conll / "eng.testb",
        "sst_train": sst / "stsa.binary.train",
        "sst_dev": sst / "stsa.binary.dev",
        "sst_test": sst / "stsa.binary.test",
    }
    return [part for name, value in values.items() for part in (f"--vars.{name}", str(value))]


#: What the project writes into its folder (its ``.gitignore``): left out of the copy, as outputs of an
#: earlier run there (``weasel run ner`` in ``project/``) would be taken for those of the test's own.
OUTPUTS = {line.strip().rstrip("/") for line in (PROJECT / ".gitignore").read_text().splitlines() if line.strip()}


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy, ignore=lambda folder, names: OUTPUTS & set(names) if Path(folder) == PROJECT else [])
    return copy


def test_project_converts_a_slice_into_its_own_folder_and_trains_two_steps(project, shared, tiny_elmo_dir):
    before = set(REPO.iterdir())
    for command in ("convert-ner", "train-ner"):
        run = weasel(project, command, *slice_vars(shared, str(tiny_elmo_dir)))
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    docs = list(
        spacy.tokens.DocBin().from_disk(project / "corpus" / "ner-train.spacy").get_docs(spacy.blank("en").vocab)
    )
    assert len(docs) == 12 and any(doc.ents for doc in docs)
    nlp = spacy.load(project / "training" / "ner-elmo" / "model-best")
    assert nlp.pipe_names == ["elmo", "ner"]
    assert set(REPO.iterdir()) == before  # nothing written into the repository


@pytest.mark.slow
def test_project_ner_workflow_runs_end_to_end_with_the_shipped_model(project, shared):
    run = weasel(project, "ner", *slice_vars(shared, "null"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    for name in ("ner-elmo", "ner-baseline"):
        assert "ents_f" in json.loads((project / "metrics" / f"{name}.json").read_text())
    assert (project / "plots" / "ner-layer-weights.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert list((project / "packages").glob("en_ner_elmo-0.0.1/dist/en_ner_elmo-0.0.1.tar.gz"))
    assert "using the shipped model" in run.stdout + run.stderr


@pytest.mark.slow  # ~11 s; the slice's conversion runs by default
def test_project_converts_sst2_from_the_treebank_when_the_formats_say_so(project, shared):
    trees = shared / "data" / "sst" / "trees"
    formats = ["--vars.sst_train_format", "sst2-phrases", "--vars.sst_eval_format", "sst2-trees"]
    files = [f"--vars.sst_{split}" for split in ("train", "dev", "test")]
    paths = [str(trees / f"{split}.txt") for split in ("train", "dev", "test")]
    tree_vars = [part for pair in zip(files, paths) for part in pair]
    run = weasel(project, "convert-textcat", *slice_vars(shared, "null"), *formats, *tree_vars)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    vocab = spacy.blank("en").vocab
    train = list(spacy.tokens.DocBin().from_disk(project / "corpus" / "sst-train.spacy").get_docs(vocab))
    dev = list(spacy.tokens.DocBin().from_disk(project / "corpus" / "sst-dev.spacy").get_docs(vocab))
    assert len(train) > 12 and len(dev) == 12  # the phrases of 12 trees; 12 sentences
    assert any(c.isupper() for doc in dev for c in doc.text)  # as cased in the treebank
