"""``doc._.elmo``: all L+1 biLM layers of a doc's tokens, kept by ``DocBin``.

Imports only NumPy and srsly at module level: srsly loads the msgpack codec below through an
entry point, possibly while spaCy is still being imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import srsly

EXTENSION = "elmo"
_MSGPACK_KEY = "__elmo_layers__"


@dataclass
class ElmoLayers:
    """The biLM layers of one doc: ``layers`` (L+1, n_tokens, 2P), layer 0 the token layer.

    Whitespace tokens (and the tokens of an empty doc) have all-zero rows: the biLM reads the
    non-whitespace tokens only. The array is NumPy on CPU and CuPy when the pipeline runs on GPU.
    """

    layers: Any

    @property
    def n_layers(self) -> int:
        return int(self.layers.shape[0])

    @property
    def width(self) -> int:
        return int(self.layers.shape[2])

    def to_dict(self) -> dict[str, Any]:
        """A msgpack-ready dict (the array moved to the CPU)."""
        layers = self.layers
        if not isinstance(layers, np.ndarray):
            layers = layers.get()  # CuPy
        return {"layers": np.ascontiguousarray(layers, dtype="float32")}

    @classmethod
    def from_dict(cls, msg: dict[str, Any]) -> ElmoLayers:
        return cls(layers=msg["layers"])


def register_extension() -> None:
    """Register ``Doc._.elmo`` (default ``None``) unless it exists already."""
    from spacy.tokens import Doc

    if not Doc.has_extension(EXTENSION):
        Doc.set_extension(EXTENSION, default=None)


@srsly.msgpack_encoders("elmo_layers")
def serialize_elmo_layers(obj: Any, chain: Callable[[Any], Any] | None = None) -> Any:
    """msgpack encoder for ``ElmoLayers`` (registered with srsly; ``DocBin`` uses it)."""
    if isinstance(obj, ElmoLayers):
        return {_MSGPACK_KEY: obj.to_dict()}
    return obj if chain is None else chain(obj)


@srsly.msgpack_decoders("elmo_layers")
def deserialize_elmo_layers(obj: Any, chain: Callable[[Any], Any] | None = None) -> Any:
    """msgpack decoder for ``ElmoLayers``."""
    if isinstance(obj, dict) and _MSGPACK_KEY in obj:
        return ElmoLayers.from_dict(obj[_MSGPACK_KEY])
    return obj if chain is None else chain(obj)
