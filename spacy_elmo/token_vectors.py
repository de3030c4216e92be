"""ELMo as spaCy's ``token.vector`` / ``span.vector`` / ``doc.vector`` and ``similarity``.

The vector of a token is a fixed mix of its biLM layers: their average, ``mean_j h_{k,j}``
(a scalar mix with s = 0 and gamma = 1, as ``hf_elmo.ScalarMix`` starts), read from
``doc._.elmo``. A span's and a doc's vector is the average of their tokens' vectors, leaving out
whitespace tokens (the biLM does not read them; their vectors are zero); a doc's ``vector_norm``
is its norm. ``similarity`` is the cosine of two vectors (0.0 when either is zero; with spaCy's
warning W008 when either has none).

``set_token_vectors(doc)`` stores the token vectors in ``doc.tensor`` (n_tokens, 2P) unless an
earlier component has already set it (spaCy's ``tok2vec`` does, and its listeners read it back at
prediction; a tensor it set itself it replaces), and installs the hooks in ``doc.user_hooks`` / ``user_span_hooks`` /
``user_token_hooks``, which read ``doc._.elmo`` and so give ELMo's vectors either way. ``doc.tensor`` and
``doc._.elmo`` survive ``Doc.to_bytes`` (and ``DocBin`` with ``store_user_data=True`` keeps
``doc._.elmo``); the hooks do not, as spaCy does not serialise hooks. Where there are no static
vectors, spaCy reads ``token.vector`` and ``doc.vector`` from ``doc.tensor`` by itself; elsewhere
call ``set_token_vectors(doc)`` again after loading docs (e.g. from ``nlp.pipe(...,
n_process=2)``). A doc made by ``span.as_doc()`` gets the hooks and the span's rows of
``doc.tensor`` but no ``doc._.elmo``: where the tensor holds ELMo's token vectors (the rows this
component set, not a later component's tensor of the same width), the hooks read them from there,
as spaCy reads ``doc.tensor`` without hooks.
"""

import warnings
import weakref
from functools import partial
from typing import Any

import numpy
from spacy.errors import Warnings
from spacy.lexeme import Lexeme
from spacy.tokens import Doc, Span, Token
from thinc.api import get_array_module, to_numpy
from thinc.types import Floats1d, Floats2d, Floats3d

from .doc_layers import current_layers, stored_layers


def set_token_vectors(doc: Doc) -> None:
    """Set the vector / similarity hooks from ``doc._.elmo``, and ``doc.tensor`` if no earlier
    component has set it, or if it holds the vectors set here before (``_set_here_before``: the doc
    or a span's doc run through the elmo component again); another component's tensor is left to
    the components that read it.

    The hooks also read ELMo's token vectors from ``doc.tensor`` where the doc has no layers, as
    long as the tensor holds them (``_ElmoTensor``): the tensor set here, one found equal to the
    layers' average (a doc loaded with its layers), or the tensor of a loaded doc whose layers
    were dropped (``doc._.elmo = None`` before it was saved), which is taken to be ELMo's."""
    layers = current_layers(doc)
    if doc.tensor.size == 0 or (layers is not None and _set_here_before(doc)):
        doc.tensor = token_vectors(doc)  # type: ignore[assignment]  # spaCy's stub says float64 NumPy; it holds Floats2d
        elmo_tensor: _ElmoTensor | None = _ElmoTensor(doc.tensor)
    elif layers is None:
        elmo_tensor = _ElmoTensor(doc.tensor)
    else:  # a loaded doc's tensor (NumPy), or one a component set, beside layers (NumPy or CuPy)
        own = doc.tensor.shape == (len(doc), layers.width) and bool(  # the average only for a tensor as wide
            numpy.allclose(to_numpy(doc.tensor), to_numpy(token_vectors(doc)), rtol=1e-6, atol=1e-6)
        )
        elmo_tensor = _ElmoTensor(doc.tensor) if own else None
    for hooks in (doc.user_hooks, doc.user_span_hooks):
        hooks["vector"] = partial(_mean_vector, elmo_tensor=elmo_tensor)
        hooks["has_vector"] = _has_vector
        hooks["similarity"] = _similarity
    # a doc's only: spaCy's Span.vector_norm calls a span's "vector" hook for it (spaCy 3.8), and a
    # span computes its norm anew (a span is made anew each time it is read)
    doc.user_hooks["vector_norm"] = _vector_norm
    doc.user_token_hooks["vector"] = partial(_token_vector, elmo_tensor=elmo_tensor)
    doc.user_token_hooks["has_vector"] = _has_vector
    doc.user_token_hooks["similarity"] = _similarity


def _set_here_before(doc: Doc) -> bool:
    """Whether ``doc.tensor`` holds the ELMo token vectors an earlier ``set_token_vectors`` put
    there (its hooks' ``_ElmoTensor``): of this doc, which the elmo component now runs on again,
    or of the doc that a ``span.as_doc()`` or ``Doc.copy()`` copied them from. These are replaced by
    the vectors of the layers now (the span's doc's, read in its own context); a tensor that
    another component set since is left to it."""
    hook = doc.user_token_hooks.get("vector")
    if not isinstance(hook, partial) or hook.func is not _token_vector:
        return False
    elmo_tensor = hook.keywords.get("elmo_tensor")
    return elmo_tensor is not None and len(doc.tensor) == len(doc) and elmo_tensor.holds(doc.tensor)


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


class _ElmoTensor:
    """ELMo's token vectors (n_tokens, 2P) as ``set_token_vectors`` put them in (or found them in)
    ``doc.tensor``, for the hooks of docs without layers: the doc itself after ``doc._.elmo =
    None``, or a doc made by ``span.as_doc()``, which copies the span's rows of the tensor and the
    hooks but no ``doc._.elmo``. A tensor is read only if it is these rows or a run of them, so
    one that a later component (spaCy's ``tok2vec``, say) wrote, of whatever width, is not."""

    # Any: doc.tensor, which spaCy's stub types as float64 NumPy; it holds Floats2d (NumPy or CuPy)
    def __init__(self, vectors: Any) -> None:
        self.vectors = vectors
        # the tensors found to be runs of the rows, by id, for as long as they live
        self._checked: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()

    def __getstate__(self) -> dict[str, Any]:
        """The vectors alone: a pickled or deep-copied doc's hooks (``pickle_doc`` takes them
        along) check its tensors anew (a weak reference cannot be pickled)."""
        return {"vectors": self.vectors}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["vectors"])  # type: ignore[misc]  # the one constructor

    def holds(self, tensor: Any) -> bool:
        """Whether ``tensor`` is the vectors or a run of their rows (``span.as_doc()``'s copy)."""
        if tensor is self.vectors or self._checked.get(id(tensor)) is tensor:
            return True
        vectors, n = self.vectors, len(tensor)
        if tensor.ndim != 2 or tensor.shape[1:] != vectors.shape[1:] or n > len(vectors):
            return False
        xp = get_array_module(vectors)
        if n > 0:
            starts = xp.flatnonzero((vectors[: len(vectors) - n + 1] == tensor[0]).all(axis=1)).tolist()
            if not any(bool(xp.array_equal(vectors[start : start + n], tensor)) for start in starts):
                return False
        self._checked[id(tensor)] = tensor
        return True


def _elmo_tensor(doc: Doc, elmo_tensor: _ElmoTensor | None) -> Floats2d | None:
    """``doc.tensor`` when the doc has no ``doc._.elmo`` and its tensor holds ELMo's token
    vectors (``_ElmoTensor``), else ``None``."""
    if elmo_tensor is None or stored_layers(doc) is not None:
        return None
    tensor = doc.tensor
    return tensor if len(tensor) == len(doc) and elmo_tensor.holds(tensor) else None  # type: ignore[return-value]  # spaCy stub: float64 NumPy


def _token_vector(token: Token, elmo_tensor: _ElmoTensor | None = None) -> Floats1d:
    annotation = stored_layers(token.doc)
    if annotation is not None and annotation.fits_token(token):  # O(1): no check of the whole doc per token
        return annotation.layers[:, token.i].mean(axis=0)
    tensor = _elmo_tensor(token.doc, elmo_tensor)
    if tensor is not None:
        return tensor[token.i]
    return _layers(token.doc)[:, token.i].mean(axis=0)


def _mean_vector(span: Doc | Span, elmo_tensor: _ElmoTensor | None = None) -> Floats1d:
    """The average of the non-whitespace tokens' vectors; zeros (2P,) if there are none."""
    doc = span if isinstance(span, Doc) else span.doc
    start, end = (0, len(doc)) if isinstance(span, Doc) else (span.start, span.end)
    rows = [i for i in range(start, end) if not doc[i].is_space]
    tensor = _elmo_tensor(doc, elmo_tensor)
    # summed in float64: a float32 sum over thousands of tokens drifts past 1e-5 of the mean
    if tensor is not None:
        if not rows:
            return tensor[:0].sum(axis=0)
        return tensor[rows].mean(axis=0, dtype="float64").astype(tensor.dtype)  # type: ignore[return-value]
    layers = _layers(doc)
    if not rows:
        return layers[0, :0].sum(axis=0)
    return layers[:, rows].mean(axis=(0, 1), dtype="float64").astype(layers.dtype)  # type: ignore[attr-defined]


def _vector_norm(doc: Doc) -> float:
    """The L2 norm of the doc's vector, computed from it each time: spaCy's own caches it at its
    first reading, so that it stayed the norm of the doc before the elmo component ran (0.0), or
    of the span a ``span.as_doc()`` copy came from after the copy was run again."""
    return _norm(to_numpy(doc.vector).astype("float64"))


def _norm(vector: numpy.ndarray) -> float:
    """The L2 norm of a float64 ``vector``, as ``_vector_norm`` and ``_similarity`` take it."""
    return float(numpy.sqrt((vector**2).sum()))


def _has_vector(obj: Token | Span | Doc) -> bool:
    """Whether the vector can be nonzero: a non-whitespace token, or a span or doc holding one."""
    return not obj.is_space if isinstance(obj, Token) else any(not token.is_space for token in obj)


def _similarity(one: Any, other: Any) -> float:
    """The cosine of the two vectors, summed in float64 and kept in [-1, 1] (float32 sums gave a
    vector's cosine with itself up to 1 + 6e-8, out of acos's domain); 0.0 when either is zero,
    with spaCy's warning W008 when either has no vector (an empty or whitespace-only doc or span,
    a whitespace token), as spaCy's own ``similarity`` warns. A Lexeme, which has no ELMo vector, or a
    vector of another width is refused, naming it (was: numpy's broadcast error, or spaCy's E010
    that the pipeline has no word vectors)."""
    what = type(one).__name__
    if isinstance(other, Lexeme):
        raise ValueError(
            f"{what}.similarity with a Lexeme: ELMo's vectors are those of tokens in context, and a Lexeme (a "
            "vocabulary entry) has no context, so no ELMo vector: compare with a token of a doc (nlp(text)[i])"
        )
    a, b = (to_numpy(x.vector).astype("float64") for x in (one, other))
    if a.shape != b.shape:
        raise ValueError(
            f"{what}.similarity of ELMo vectors of width {a.size} with a {type(other).__name__} whose vector has "
            f"width {b.size}: that one is not of this pipeline's ELMo (static vectors, or another pipeline's doc); "
            "compare docs, spans and tokens that this pipeline's elmo component ran on"
        )
    norms = _norm(a) * _norm(b)
    if norms > 0:
        return min(1.0, max(-1.0, float((a * b).sum()) / norms))
    if not one.has_vector or not other.has_vector:
        warnings.warn(Warnings.W008.format(obj=type(one).__name__))
    return 0.0
