"""ELMo as spaCy's ``token.vector`` / ``span.vector`` / ``doc.vector`` and ``similarity``.

The vector of a token is a fixed mix of its biLM layers: their average, ``mean_j h_{k,j}``
(a scalar mix with s = 0 and gamma = 1, as ``hf_elmo.ScalarMix`` starts), read from
``doc._.elmo``. A span's and a doc's vector is the average of their tokens' vectors, leaving out
whitespace tokens (the biLM does not read them; their vectors are zero). ``similarity`` is the
cosine of two vectors (0.0 when either is zero).

``set_token_vectors(doc)`` stores the token vectors in ``doc.tensor`` (n_tokens, 2P) unless an
earlier component has already set it (spaCy's ``tok2vec`` does, and its listeners read it back at
prediction), and installs the hooks in ``doc.user_hooks`` / ``user_span_hooks`` /
``user_token_hooks``, which read ``doc._.elmo`` and so give ELMo's vectors either way. ``doc.tensor`` and
``doc._.elmo`` survive ``Doc.to_bytes`` (and ``DocBin`` with ``store_user_data=True`` keeps
``doc._.elmo``); the hooks do not, as spaCy does not serialise hooks. Where there are no static
vectors, spaCy reads ``token.vector`` and ``doc.vector`` from ``doc.tensor`` by itself; elsewhere
call ``set_token_vectors(doc)`` again after loading docs (e.g. from ``nlp.pipe(...,
n_process=2)``). A doc made by ``span.as_doc()`` gets the hooks and the span's rows of
``doc.tensor`` but no ``doc._.elmo``: where the tensor holds ELMo's token vectors (this component
set it), the hooks read them from there, as spaCy reads ``doc.tensor`` without hooks.
"""

from functools import partial
from typing import Any

from spacy.tokens import Doc, Span, Token
from thinc.types import Floats1d, Floats2d, Floats3d

from .doc_layers import current_layers, stored_layers


def set_token_vectors(doc: Doc) -> None:
    """Set the vector / similarity hooks from ``doc._.elmo``, and ``doc.tensor`` if no earlier
    component has set it (another component's tensor is left to the components that read it)."""
    tensor_width = None  # the width of doc.tensor's rows when they are ELMo's token vectors
    if doc.tensor.size == 0:
        doc.tensor = token_vectors(doc)  # type: ignore[assignment]  # spaCy's stub says float64 NumPy; it holds Floats2d
        tensor_width = int(doc.tensor.shape[1])
    for hooks in (doc.user_hooks, doc.user_span_hooks):
        hooks["vector"] = partial(_mean_vector, tensor_width=tensor_width)
        hooks["has_vector"] = _has_vector
        hooks["similarity"] = _similarity
    doc.user_token_hooks["vector"] = partial(_token_vector, tensor_width=tensor_width)
    doc.user_token_hooks["has_vector"] = _has_vector
    doc.user_token_hooks["similarity"] = _similarity


def token_vectors(doc: Doc) -> Floats2d:
    """The average of the biLM layers of every token, (n_tokens, 2P)."""
    return _layers(doc).mean(axis=0)  # type: ignore[attr-defined]  # thinc's Floats3d stub lacks mean (ndarray's)


def _layers(doc: Doc) -> Floats3d:
    """``doc._.elmo``'s (L+1, n_tokens, 2P) layers, for the doc's tokens as they are now
    (``current_layers``). The hooks read these, not ``doc.tensor``, which a later component
    (e.g. spaCy's ``tok2vec``) may overwrite."""
    annotation = current_layers(doc)
    if annotation is None:
        raise ValueError(
            "the doc has no ELMo layers (doc._.elmo) nor ELMo token vectors in doc.tensor: run the elmo "
            "component on it first (or read span.vector on the doc the span is from)"
        )
    return annotation.layers


def _elmo_tensor(doc: Doc, tensor_width: int | None) -> Floats2d | None:
    """``doc.tensor`` when it holds the doc's ELMo token vectors and the doc has no ``doc._.elmo``
    (a doc made by ``span.as_doc()``, which copies the span's rows of the tensor and the hooks):
    ``tensor_width`` is the rows' width when the elmo component set the tensor, else ``None``."""
    if tensor_width is None or stored_layers(doc) is not None:
        return None
    return doc.tensor if doc.tensor.shape == (len(doc), tensor_width) else None  # type: ignore[return-value]  # as above


def _token_vector(token: Token, tensor_width: int | None = None) -> Floats1d:
    annotation = stored_layers(token.doc)
    if annotation is not None and annotation.fits_token(token):  # O(1): no check of the whole doc per token
        return annotation.layers[:, token.i].mean(axis=0)
    tensor = _elmo_tensor(token.doc, tensor_width)
    if tensor is not None:
        return tensor[token.i]
    return _layers(token.doc)[:, token.i].mean(axis=0)


def _mean_vector(span: Doc | Span, tensor_width: int | None = None) -> Floats1d:
    """The average of the non-whitespace tokens' vectors; zeros (2P,) if there are none."""
    doc = span if isinstance(span, Doc) else span.doc
    start, end = (0, len(doc)) if isinstance(span, Doc) else (span.start, span.end)
    rows = [i for i in range(start, end) if not doc[i].is_space]
    tensor = _elmo_tensor(doc, tensor_width)
    # summed in float64: a float32 sum over thousands of tokens drifts past 1e-5 of the mean
    if tensor is not None:
        if not rows:
            return tensor[:0].sum(axis=0)
        return tensor[rows].mean(axis=0, dtype="float64").astype(tensor.dtype)  # type: ignore[return-value]
    layers = _layers(doc)
    if not rows:
        return layers[0, :0].sum(axis=0)
    return layers[:, rows].mean(axis=(0, 1), dtype="float64").astype(layers.dtype)  # type: ignore[attr-defined]


def _has_vector(obj: Token | Span | Doc) -> bool:
    """Whether the vector can be nonzero: a non-whitespace token, or a span or doc holding one."""
    return not obj.is_space if isinstance(obj, Token) else any(not token.is_space for token in obj)


def _similarity(one: Any, other: Any) -> float:
    a, b = one.vector, other.vector
    norms = float((a**2).sum() ** 0.5) * float((b**2).sum() ** 0.5)
    return float((a * b).sum()) / norms if norms > 0 else 0.0
