"""Shared test fixtures: where ../shared lives, and converted fixture models."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def load_script(path: str) -> ModuleType:
    """The script ``REPO / path`` (e.g. ``scripts/convert_corpora.py``) loaded as a module of its
    file's name, to call its functions in this process."""
    spec = importlib.util.spec_from_file_location(Path(path).stem, REPO / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_main(module: ModuleType, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """A script's ``module.main(argv)`` (``load_script``) run in this process: its exit status (a
    ``SystemExit``'s code; 0 when it returns) and what it printed on stdout and stderr."""
    capsys.readouterr()
    try:
        module.main(argv)
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def strict_json_loads(text: str) -> Any:
    """``json.loads`` that refuses Infinity and NaN, as strict JSON parsers (jq, JavaScript) do."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _load_shared_data():
    """``scripts/shared_data.py``, the one definition of where the shared data lives."""
    return load_script("scripts/shared_data.py")


def shared_dir() -> Path | None:
    """``$ELMO_SHARED`` or ``../shared`` beside the repository, if present."""
    return _load_shared_data().shared_dir(required=False)


@pytest.fixture(autouse=True)
def torch_threads_restored():
    """Every test leaves torch's thread count as it found it: a test (or code it calls in-process,
    e.g. a script's ``main``) that sets it would change the float sums of every later test, whose
    1e-6 parity checks depend on the thread count they run with."""
    import torch

    threads = torch.get_num_threads()
    yield
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def word_baseline_folder(tmp_path_factory) -> Path:
    """A tiny word-embedding baseline as ``elmo pretrain --token-embedding word`` writes it (card included)."""
    from hf_elmo.cli import main
    from tests.hf_elmo.training.test_pretraining import TINY_WORD_SHAPE_ARGS, write_corpus

    folder = tmp_path_factory.mktemp("word-baseline")
    corpus = write_corpus(folder / "c.txt", n=30)
    options = ["--max-tokens", "50", "--min-count", "1", "--token-embedding", "word", "--pre-tokenizer", "spacy:en"]
    options.append("--no-progress")
    assert main(["pretrain", str(corpus), str(folder / "lm"), *TINY_WORD_SHAPE_ARGS, *options]) == 0
    return folder / "lm"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder (``~``) under ``tmp_path``, the current folder another one beside it (``tmp_path / "work"``)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return home


@pytest.fixture
def one_thread():
    """Tiny models run fastest on one thread (and leave the machine's other cores alone)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("../shared (or $ELMO_SHARED) is absent: the reference fixtures are not available")
    return path


@pytest.fixture(scope="session")
def allennlp_fixture(shared: Path) -> Path:
    return shared / "fixtures" / "elmo-allennlp"


@pytest.fixture(scope="session")
def allennlp_model(allennlp_fixture: Path):
    from hf_elmo import ElmoModel

    return ElmoModel.from_allennlp(allennlp_fixture / "options.json", allennlp_fixture / "lm_weights.hdf5")


@pytest.fixture(scope="module")
def model_dir(allennlp_model, tmp_path_factory) -> Path:
    """``allennlp_model`` saved as a model folder (``save_pretrained``), once a test module."""
    folder = tmp_path_factory.mktemp("fixture-model")
    allennlp_model.save_pretrained(folder)
    return folder
