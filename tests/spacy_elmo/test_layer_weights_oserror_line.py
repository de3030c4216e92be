"""``python -m spacy_elmo.layer_weights`` says a failed write as the scripts do, ``OUT: REASON``, without Python's
``[Errno N]`` (``error_text``)."""

from __future__ import annotations

import errno
import os

import numpy as np
import spacy

import spacy_elmo.layer_weights
from spacy_elmo.layer_weights import MixWeights, main


def test_a_full_disk_is_said_without_the_errno(tmp_path, capsys, monkeypatch):
    """Was: 'python -m spacy_elmo.layer_weights: error: OUT: [Errno 28] No space left on device'."""
    import matplotlib.figure

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(spacy, "load", lambda path: spacy.blank("en"))
    mixes = [MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)]
    monkeypatch.setattr(spacy_elmo.layer_weights, "read_layer_weights", lambda nlp: mixes)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    (tmp_path / "pipeline").mkdir()
    out = tmp_path / "w.png"
    assert main([str(tmp_path / "pipeline"), str(out)]) == 1
    assert capsys.readouterr().err == (
        f"python -m spacy_elmo.layer_weights: error: {out}: {os.strerror(errno.ENOSPC)}\n"
    )
    assert list(tmp_path.iterdir()) == [tmp_path / "pipeline"]
