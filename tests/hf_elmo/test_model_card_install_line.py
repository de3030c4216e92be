"""The model cards' usage code says how to install hf-elmo the README's way (``pip install -e .`` in a
clone; the package is not on PyPI, where a ``pip install hf-elmo`` would find nothing of ours): the cards
that ``write_model_card`` writes (char-CNN and word-baseline usage) and the shipped model's card."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.model_card import write_model_card
from hf_elmo.pretrained import DEFAULT_MODEL
from tests.conftest import REPO

IMPORT_LINE = (
    "import hf_elmo  # hf-elmo (pip install -e . in its clone) registers the Auto classes; "
    "or pass trust_remote_code=True"
)

SHIPPED_IMPORT_LINE = "from hf_elmo import ElmoModel, ElmoTokenizer  # hf-elmo (pip install -e . in its clone)"


def test_the_readme_installs_from_a_clone():
    assert "The distribution is named `hf-elmo` (`pip install -e .` in a clone;" in (REPO / "README.md").read_text()


@pytest.mark.parametrize("card", ["written", "written for a word baseline", "shipped"])
def test_a_model_cards_usage_installs_hf_elmo_as_the_readme_does(card: str, tmp_path: Path) -> None:
    if card == "shipped":  # loaded by its shipped name, through hf_elmo's classes
        text = (DEFAULT_MODEL / "README.md").read_text(encoding="utf-8")
        assert [line for line in text.splitlines() if "hf_elmo import" in line] == [SHIPPED_IMPORT_LINE]
    else:
        reads_word_ids = card == "written for a word baseline"
        text = write_model_card(tmp_path, "t", "d", {}, reads_word_ids=reads_word_ids).read_text(encoding="utf-8")
        assert [line for line in text.splitlines() if line.startswith("import hf_elmo")] == [IMPORT_LINE]
    assert "pip install hf-elmo" not in text
