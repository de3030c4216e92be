"""The learned layer weights README.md states and draws (the shipped model's) are the ones BENCHMARKS.md says
are "the figure in README.md", and only one BENCHMARKS.md passage says so (was: three, of the models of
versions 0.2.0, 0.3.0 and 0.5.0, whose weights README.md no longer shows)."""

from __future__ import annotations

import re

from tests.test_published_speed_ratios import BENCHMARKS, README

WEIGHTS = r"([\d.]+) / ([\d.]+) / ([\d.]+)"


def test_the_readmes_layer_weights_are_the_one_benchmarks_passage_that_names_them():
    text = " ".join(BENCHMARKS.split())
    passages = re.findall(
        rf"NER softmax\(s\) = {WEIGHTS} \(token, LSTM 1, LSTM 2\), gamma [\d.]+; SST-2 {WEIGHTS}, gamma [\d.]+ "
        r"\(the figure in README\.md",
        text,
    )
    assert len(passages) == 1, passages
    ner, sst = passages[0][:3], passages[0][3:]
    assert f"({' / '.join(ner)}: token, LSTM 1, LSTM 2)" in README
    assert f"({' / '.join(sst)};" in README
    assert "layer-weights-elmo-2x1024-en.png" in README
