"""ELMo in spaCy v3: the ``elmo`` pipeline component and per-task scalar-mix listeners.

Registered through entry points (no import needed in configs): the factory ``elmo``, the
architectures ``spacy-elmo.ElmoBiLm.v3`` (and ``.v2``, ``.v1``), ``spacy-elmo.ElmoMixListener.v1``,
``spacy-elmo.ElmoMix.v1``, ``spacy-elmo.ElmoTok2Vec.v1``, the loader
``spacy-elmo.ElmoLoader.v1`` and the msgpack codec of ``doc._.elmo``. Names below are imported
on first use: srsly loads the codec while spaCy itself is still importing.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "ElmoComponent": "component",
    "ElmoLayers": "doc_layers",
    "ElmoListener": "listener",
    "plot_layer_weights": "layer_weights",
    "set_token_vectors": "token_vectors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'spacy_elmo' has no attribute {name!r}")
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
