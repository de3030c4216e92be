"""``save_layer_weights`` makes the figure's missing folder, and removes it again when the figure cannot be
written: a failed save leaves nothing of its own (was: the empty folder)."""

from __future__ import annotations

import numpy as np
import pytest

from spacy_elmo.layer_weights import MixWeights, save_layer_weights


def test_a_failed_save_leaves_no_folder_it_made(tmp_path, monkeypatch):
    import matplotlib.figure

    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    with pytest.raises(OSError, match="No space left on device"):
        save_layer_weights([MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)], tmp_path / "plots" / "deeper" / "w.png")
    assert list(tmp_path.iterdir()) == []
