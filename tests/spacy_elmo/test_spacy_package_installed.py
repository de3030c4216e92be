"""``spacy package`` of a trained ELMo pipeline, installed with pip and loaded by its package name: the biLM
travels inside the package, so ``spacy.load("en_NAME")`` runs with no network and no other path (the biLM
folder the pipeline was initialised from, the pipeline's folder and the package's build folder all gone)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.spacy_elmo.pipeline_helpers import tiny_elmo, trained_ner

TEXT = "Alice lives in Paris ."

#: Loads the installed package by name and prints its pipe names, the doc's layers and where its biLM came from.
LOAD = f"""
import json, spacy
nlp = spacy.load("en_elmo_test")
doc = nlp({TEXT!r})
print(json.dumps({{"pipes": nlp.pipe_names, "layers": doc._.elmo.layers.tolist(), "bilm": doc._.elmo.bilm._asdict()}}))
"""


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, env=env or None)


@pytest.mark.slow  # ~40 s: spacy package builds an sdist, pip builds and installs its wheel
def test_a_packaged_elmo_pipeline_installed_with_pip_loads_by_name_offline_with_its_biLM_inside(tmp_path):
    tiny_elmo().save_pretrained(tmp_path / "tiny")
    nlp = trained_ner(tmp_path / "tiny")
    expected = nlp(TEXT)._.elmo
    nlp.to_disk(tmp_path / "pipeline")
    (tmp_path / "packages").mkdir()
    packaged = _run(
        [sys.executable, "-m", "spacy", "package", "pipeline", "packages", "--name", "elmo_test", "--version", "0.0.1"],
        tmp_path,
    )
    assert packaged.returncode == 0, packaged.stdout[-2000:] + packaged.stderr[-2000:]
    sdist = tmp_path / "packages" / "en_elmo_test-0.0.1" / "dist" / "en_elmo_test-0.0.1.tar.gz"
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-build-isolation"]
    installed = _run([*pip, "--target", str(tmp_path / "site"), str(sdist)], tmp_path)
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    for folder in ("tiny", "pipeline", "packages"):
        shutil.rmtree(tmp_path / folder)
    (tmp_path / "elsewhere").mkdir()
    loaded = _run(
        [sys.executable, "-c", LOAD],
        tmp_path / "elsewhere",
        PATH="/usr/bin:/bin",
        PYTHONPATH=str(tmp_path / "site"),
        HF_HUB_OFFLINE="1",
        HF_HOME=str(tmp_path / "hf-home"),
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    said = json.loads(loaded.stdout.strip().splitlines()[-1])
    assert said["pipes"] == ["elmo", "ner"]
    inside = tmp_path / "site" / "en_elmo_test" / "en_elmo_test-0.0.1" / "elmo" / "bilm"
    assert said["bilm"] == {"name": str(inside), "digest": expected.bilm.digest}  # the trained pipeline's biLM
    np.testing.assert_allclose(said["layers"], expected.layers, atol=1e-6)
