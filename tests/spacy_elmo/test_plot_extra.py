"""matplotlib is the `plot` extra: without it, the plot says how to get it (and nothing else needs it)."""

import sys

import numpy as np
import pytest

from spacy_elmo.layer_weights import MixWeights, layer_weights_figure


def test_the_plot_without_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # importing matplotlib now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "hf-elmo\[plot\]"'):
        layer_weights_figure([MixWeights("ner", np.array([0.5, 0.5]), 1.0)])


def test_matplotlib_is_required_only_by_the_plot_and_test_extras():
    from importlib.metadata import requires

    matplotlib = [r for r in requires("hf-elmo") if r.startswith("matplotlib")]
    assert matplotlib and all("extra ==" in r for r in matplotlib), matplotlib
    assert any('extra == "plot"' in r for r in matplotlib)
