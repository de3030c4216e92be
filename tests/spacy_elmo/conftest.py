"""Fixtures of the spaCy tests: a tiny random biLM saved as a Hugging Face folder, pipelines."""

from collections.abc import Callable
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

from tests.spacy_elmo.pipeline_helpers import loader_settings, tiny_elmo


@pytest.fixture(scope="session")
def tiny_elmo_dir(tmp_path_factory) -> Path:
    """A random 2-layer biLM (P = 8: layers of width 16) saved with ``save_pretrained``."""
    folder = tmp_path_factory.mktemp("tiny-elmo")
    tiny_elmo().save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def other_tiny_elmo_dir(tmp_path_factory) -> Path:
    """A biLM of the widths of ``tiny_elmo_dir``'s, other weights (seed 1), saved with ``save_pretrained``."""
    folder = tmp_path_factory.mktemp("other-tiny-elmo")
    tiny_elmo(1).save_pretrained(folder)
    return folder


@pytest.fixture
def make_nlp(tiny_elmo_dir) -> Callable[..., Language]:
    """``make_nlp(**elmo_config)``: blank English with an initialised ``elmo`` component."""

    def make(sentencizer: bool = False, **config) -> Language:
        nlp = spacy.blank("en")
        if sentencizer:
            nlp.add_pipe("sentencizer")
        nlp.add_pipe("elmo", config=config)
        nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
        nlp.initialize()
        return nlp

    return make
