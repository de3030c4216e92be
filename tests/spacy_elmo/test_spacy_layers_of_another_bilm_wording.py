"""The refusal of another biLM's layers in ``doc._.elmo`` names each biLM of the listener once, and its upstream
by name where it is linked to no elmo component (a copy's listener, which keeps the biLMs it was linked to)."""

import pickle

import numpy as np
import pytest
import spacy

from spacy_elmo import ElmoLayers
from spacy_elmo.doc_layers import BiLm, register_extension
from spacy_elmo.listener import ElmoListener, _annotated_layers, _UpstreamBiLms

KEPT, OTHER = BiLm("/models/kept", "a" * 64), BiLm("/models/other", "b" * 64)


def test_each_biLM_is_named_once_and_the_upstream_by_name_where_none_is_linked():
    register_extension()
    listener = ElmoListener("elmo")
    listener.upstream_bilms = pickle.loads(pickle.dumps(_UpstreamBiLms((KEPT, KEPT))))  # as a copy keeps them
    listener.set_dim("nL", 3)
    listener.set_dim("nO", 4)
    doc = spacy.blank("en")("Hello world")
    doc._.elmo = ElmoLayers.of(doc, np.zeros((3, 2, 4), dtype="float32"), "elmo", OTHER)
    with pytest.raises(ValueError) as info:
        _annotated_layers(listener, doc, is_train=False)
    assert str(info.value) == (
        "ELMo listener (upstream 'elmo'): doc._.elmo holds layers that the biLM /models/other (weights bbbbbbbbbbbb) "
        "computed, not the biLM /models/kept (weights aaaaaaaaaaaa) of the elmo component 'elmo' it listens to (docs "
        "that another pipeline annotated, e.g. read from a DocBin): run this pipeline's elmo component 'elmo' on the "
        "docs (leave it enabled), or use the pipeline whose biLM made them"
    )  # was: "... or /models/kept (weights aaaaaaaaaaaa) of the elmo component None ..."
    doc._.elmo = ElmoLayers.of(doc, np.zeros((3, 2, 4), dtype="float32"), "elmo", KEPT)
    assert _annotated_layers(listener, doc, is_train=False).shape == (3, 2, 4)
