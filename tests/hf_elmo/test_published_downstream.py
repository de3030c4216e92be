"""README's spaCy table of the shipped model (each seed's score, ELMo minus baseline, the
eight-seed SST-2 mean and its standard error) is the record in its training.json
(``figures.downstream``, which the card is written from) rounded as printed (were: copied by hand,
unchecked)."""

from __future__ import annotations

import json
import statistics

from hf_elmo.pretrained import DEFAULT_MODEL
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
DOWNSTREAM = json.loads((DEFAULT_MODEL / "training.json").read_text())["figures"]["downstream"]
NER = "CoNLL-2003 NER {} F1 (full data, 5 epochs, seeds 0 / 1 / 2 / 3)"
SST = "SST-2 {} accuracy (full data, 5 epochs, seeds 0 to 7)"
NER_DEV, NER_TEST = DOWNSTREAM[NER.format("dev")], DOWNSTREAM[NER.format("test")]
SST_DEV, SST_TEST = DOWNSTREAM[SST.format("dev")], DOWNSTREAM[SST.format("test")]


def seeds(values: list[float]) -> str:
    return " / ".join(f"{value:.1f}" for value in values)


def gain(scores: dict[str, list[float]], first: int, last: int, digits: int = 1) -> str:
    mean = statistics.mean(scores["elmo"][first:last]) - statistics.mean(scores["baseline"][first:last])
    return f"{mean:+.{digits}f}"


def row(scores: dict[str, list[float]], first: int, last: int) -> str:
    """A README row's cells of the baseline's and ELMo's seeds, up to the cell of their mean gain."""
    return f"| {seeds(scores['baseline'][first:last])} | {seeds(scores['elmo'][first:last])} | "


def test_each_row_of_the_readmes_spacy_table_is_the_recorded_scores():
    rows = {line.split(" | ")[0]: line.replace("**", "") for line in README.splitlines() if line.startswith("| ")}
    expected = {
        "| CoNLL-2003 NER, dev `testa` (entity F1)": row(NER_DEV, 0, 4) + gain(NER_DEV, 0, 4) + " |",
        "| CoNLL-2003 NER, test `testb` (entity F1)": row(NER_TEST, 0, 4) + gain(NER_TEST, 0, 4) + " |",
        "| SST-2, dev (accuracy)": row(SST_DEV, 0, 4) + gain(SST_DEV, 0, 4) + " |",
        "| SST-2, test (accuracy)": row(SST_TEST, 0, 4) + gain(SST_TEST, 0, 4) + " |",
        "| SST-2, dev, seeds 4 / 5 / 6 / 7": row(SST_DEV, 4, 8)
        + f"{gain(SST_DEV, 4, 8)} (seeds 0-7: {gain(SST_DEV, 0, 8)}) |",
        "| SST-2, test, seeds 4 / 5 / 6 / 7": row(SST_TEST, 4, 8)
        + f"{gain(SST_TEST, 4, 8)} (seeds 0-7: {gain(SST_TEST, 0, 8, 2)}) |",
    }
    for label, cells in expected.items():
        assert label in rows, label
        assert rows[label].startswith(label + " " + cells), (rows[label], cells)


def test_the_readmes_seed_by_seed_gains_and_standard_error_are_the_recorded_scores():
    text = " ".join(README.replace("**", "").split())

    def by_seed(scores: dict[str, list[float]], last: int) -> str:
        return ", ".join(f"{e - b:+.1f}" for e, b in zip(scores["elmo"][:last], scores["baseline"][:last]))

    assert f"by {gain(NER_TEST, 0, 4)[1:]} F1 ({by_seed(NER_TEST, 4)} seed by seed)" in text
    assert f"({by_seed(SST_TEST, 4)}; dev {gain(SST_DEV, 0, 4)})" in text
    differences = [e - b for e, b in zip(SST_TEST["elmo"], SST_TEST["baseline"])]
    error = statistics.stdev(differences) / len(differences) ** 0.5
    assert (
        f"{gain(SST_TEST, 0, 8, 2)} over seeds 0 to 7 (standard error {error:.2f}; dev {gain(SST_DEV, 0, 8)})" in text
    )
