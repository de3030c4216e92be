"""README's size of the layers every doc keeps (``doc._.elmo``), computed from the shipped model's
config, as ``tests/hf_elmo/test_published_sizes.py`` computes README's other statement of it."""

from __future__ import annotations

import re

import pytest

from hf_elmo import ElmoConfig
from hf_elmo.pretrained import DEFAULT_MODEL
from tests.conftest import REPO

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())  # sentences on one line


def test_the_layers_a_doc_keeps_a_token_are_the_readmes_kilobytes_for_the_shipped_model():
    config = ElmoConfig.from_pretrained(str(DEFAULT_MODEL))
    said = re.findall(r"layers: \(L\+1\) x 2P float32 numbers a token, (\d+) KB with the shipped model", README)
    assert len(said) == 1
    assert float(said[0]) == pytest.approx((config.n_layers + 1) * 2 * config.projection_dim * 4 / 1024, rel=0.05)
