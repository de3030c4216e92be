"""``doc._.elmo``: all L+1 biLM layers of a doc's tokens, kept by ``DocBin``.

The layers remember the character span of each token they were computed for, so they follow
the doc when a later component changes its tokens (``doc.retokenize()``, ``merge_entities``,
``merge_noun_chunks``): ``current_layers(doc)`` realigns them first, and every reader of
``doc._.elmo`` in this package (listeners, vector hooks) goes through it. ``span.as_doc()``
gives a doc without ``doc._.elmo`` (spaCy copies no doc-level extension value, even with
``copy_user_data=True``); ``new_doc._.elmo = ElmoLayers.of_span(span)`` gives it the span's rows,
with the component and the biLM that computed them. Such a doc shares the hooks of the doc it came from (``as_doc`` hands
it the same ``user_hooks`` dict), which is how ``annotated_sharing_hooks`` tells it apart from a doc
the elmo component never saw, of a doc read back (``DocBin``, ``Doc.from_bytes``) too.

Imports only NumPy and srsly at module level: srsly loads the msgpack codec below through an
entry point, possibly while spaCy is still being imported.
"""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import srsly

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

EXTENSION = "elmo"
_MSGPACK_KEY = "__elmo_layers__"
#: Where ``doc._.elmo`` is kept: the ``user_data`` key spaCy uses for an extension with a default
#: value, as ``doc._.elmo`` was registered before it realigned itself, so saved docs still load.
_STORED = ("._.", EXTENSION, None, None)


class BiLm(NamedTuple):
    """The biLM that computed layers: ``name``, where it came from (its ``name_or_path``: a model name or the
    folder it was loaded from), and ``digest``, the SHA-256 of its config and weights (hf_elmo's
    ``model_fingerprint``), which tells it from another biLM of the same widths."""

    name: str
    digest: str

    def __str__(self) -> str:
        return f"{self.name} (weights {self.digest[:12]})"


@dataclass
class ElmoLayers:
    """The biLM layers of one doc: ``layers`` (L+1, n_tokens, 2P), layer 0 the token layer.

    Whitespace tokens (and the tokens of an empty doc) have all-zero rows: the biLM reads the
    non-whitespace tokens only. The array is NumPy on CPU and CuPy when the pipeline runs on GPU.
    ``spans`` (n_tokens, 2) holds each row's token as [start, end) character offsets (``None`` in
    docs saved by older versions, which did not record them), ``component`` the name of the
    ``elmo`` component that computed them and ``bilm`` its biLM (``None``: not recorded, as by older
    versions), which a listener checks against its own elmo component's.
    """

    layers: Any
    spans: np.ndarray | None = None
    component: str | None = None
    bilm: BiLm | None = None

    @classmethod
    def of(cls, doc: Doc, layers: Any, component: str, bilm: BiLm | None = None) -> ElmoLayers:
        """``layers`` computed for ``doc``'s tokens as they are now: (L+1, n_tokens, 2P), a row
        for each token; others are refused, naming their shape (was: taken, to fail later with an
        IndexError, or to give wrong vectors, read from the wrong rows or a 2-D array). ``bilm``: the biLM
        that computed them."""
        shape = tuple(getattr(layers, "shape", ()))
        if len(shape) != 3 or shape[1] != len(doc):
            raise ValueError(
                f"ElmoLayers.of: layers of shape {shape} for a doc of {len(doc)} tokens: give the (L+1, n_tokens, 2P) "
                "layers of the doc's tokens, a row each (for span.as_doc(): new._.elmo = ElmoLayers.of_span(span), which "
                "keeps the biLM that computed them)"
            )
        return cls(layers=layers, spans=token_spans(doc), component=component, bilm=bilm)

    @classmethod
    def of_span(cls, span: Span) -> ElmoLayers:
        """The layers of ``span``'s tokens for the doc ``span.as_doc()`` makes of it, which spaCy gives no
        ``doc._.elmo``: ``new = span.as_doc(); new._.elmo = ElmoLayers.of_span(span)``. They keep the elmo
        component and the biLM that computed the span's doc's layers, which a listener checks (rows taken by
        hand with ``of`` record no biLM unless given one). A span of a doc without layers is refused."""
        annotation = current_layers(span.doc)
        if annotation is None:
            from hf_elmo.messages import quoted  # (not at module level: see the module's docstring)

            raise ValueError(
                f"ElmoLayers.of_span: the doc of the span {quoted(span.text)} has no doc._.elmo: run the pipeline (its "
                "elmo component) on the doc first, or run it on the span's own doc, nlp(span.as_doc())"
            )
        spans = token_spans(span.doc)[span.start : span.end] - span.start_char
        layers = annotation.layers[:, span.start : span.end]
        return cls(layers=layers, spans=spans, component=annotation.component, bilm=annotation.bilm)

    def __repr__(self) -> str:
        """One line, without the numbers (spaCy's errors show it, e.g. ``doc.to_json`` refusing
        ``doc._.elmo`` as not JSON)."""
        return f"ElmoLayers(layers of shape {tuple(self.layers.shape)}, component {self.component!r})"

    @property
    def n_layers(self) -> int:
        return int(self.layers.shape[0])

    @property
    def width(self) -> int:
        return int(self.layers.shape[2])

    def fits(self, doc: Doc) -> bool:
        """Whether the rows are ``doc``'s tokens as they are now."""
        if self.layers.shape[1] != len(doc):
            return False
        return self.spans is None or bool(np.array_equal(self.spans, token_spans(doc)))

    def fits_token(self, token: Token) -> bool:
        """``fits`` for one token in O(1): the row count is the doc's and row ``token.i`` is this
        token's span (rows before a retokenized region still fit; those after it have moved)."""
        if self.layers.shape[1] != len(token.doc):
            return False
        return self.spans is None or tuple(self.spans[token.i]) == (token.idx, token.idx + len(token))

    def realigned(self, doc: Doc) -> ElmoLayers:
        """The layers of ``doc``'s tokens now, from the tokens they were computed for, matched by
        character span: a token split in pieces gives each piece its row; a token made of several
        (a merge) gets the mean of their rows, whitespace tokens left out unless there is nothing
        else. Rows of unchanged tokens are copied exactly."""
        if self.spans is None:
            raise ValueError(
                f"doc._.elmo holds layers for {self.layers.shape[1]} tokens but the doc has {len(doc)}: its tokens "
                "changed after the elmo component ran, and these layers (saved by an older hf-elmo, which did not "
                "record the tokens' character spans) do not say which tokens they were; run the elmo component on "
                "the doc again"
            )
        spans = token_spans(doc)
        starts, ends = self.spans[:, 0], self.spans[:, 1]
        first = np.searchsorted(ends, spans[:, 0], side="right")  # the first old token that ends after a start
        stop = np.searchsorted(starts, spans[:, 1], side="left")  # past the last old token that starts before an end
        text = doc.text
        spaces = np.array([text[s:e].isspace() for s, e in self.spans], dtype=bool)
        out = self.layers[:, first]  # a copy: each new token's first old row
        for i in np.flatnonzero(stop - first > 1):  # merged tokens
            rows = np.arange(first[i], stop[i])
            words = rows[~spaces[rows]] if (~spaces[rows]).any() else rows
            out[:, i] = self.layers[:, words].mean(axis=1)
        return ElmoLayers(layers=out, spans=spans, component=self.component, bilm=self.bilm)

    def to_dict(self) -> dict[str, Any]:
        """A msgpack-ready dict (the array moved to the CPU)."""
        layers = self.layers
        if not isinstance(layers, np.ndarray):
            layers = layers.get()  # CuPy
        msg: dict[str, Any] = {"layers": np.ascontiguousarray(layers, dtype="float32"), "component": self.component}
        if self.spans is not None:
            msg["spans"] = self.spans
        if self.bilm is not None:
            msg["bilm"] = list(self.bilm)
        return msg

    @classmethod
    def from_dict(cls, msg: dict[str, Any]) -> ElmoLayers:
        bilm = BiLm(*msg["bilm"]) if msg.get("bilm") else None
        return cls(layers=msg["layers"], spans=msg.get("spans"), component=msg.get("component"), bilm=bilm)


def token_spans(doc: Doc) -> np.ndarray:
    """Each token's [start, end) character offsets in ``doc.text``, (n_tokens, 2) int64."""
    return np.array([(token.idx, token.idx + len(token)) for token in doc], dtype=np.int64).reshape(len(doc), 2)


def current_layers(doc: Doc) -> ElmoLayers | None:
    """``doc._.elmo``'s getter: the layers for the doc's tokens as they are now, realigned
    (``ElmoLayers.realigned``) and stored back when a component changed the tokens since the
    elmo component ran; ``None`` when the doc has no layers."""
    annotation = stored_layers(doc)
    if annotation is None or annotation.fits(doc):
        return annotation
    realigned = annotation.realigned(doc)
    _store(doc, realigned)
    return realigned


def stored_layers(doc: Doc) -> ElmoLayers | None:
    """``doc._.elmo`` as stored, not realigned: for readers that check ``fits_token`` themselves."""
    return _user_data(doc).get(_STORED)


#: An annotated doc by the id of its ``user_hooks`` dict, for as long as the doc lives.
_BY_HOOKS: weakref.WeakValueDictionary[int, Doc] = weakref.WeakValueDictionary()


def _store(doc: Doc, layers: ElmoLayers | None) -> None:
    """``doc._.elmo``'s setter. A doc given layers of its own gets hook dicts of its own too, unless
    it has them since it was last given layers: it may share those of the doc ``span.as_doc()`` made
    it from, annotated here or read back (``DocBin``, ``Doc.from_bytes``: its layers were not set
    through this), and the vector hooks that the elmo component then sets on it would be that doc's
    too, and its vectors wrong. What is neither ``ElmoLayers`` nor ``None`` is refused, saying how to make one
    (was: taken, to fail at the next read with an AttributeError)."""
    if layers is not None and not isinstance(layers, ElmoLayers):
        from hf_elmo.messages import described  # (not at module level: see the module's docstring)

        raise TypeError(
            f"doc._.elmo takes ElmoLayers or None, got {described(layers)}: give (L+1, n_tokens, 2P) layers as "
            "ElmoLayers.of(doc, layers, component) (from spacy_elmo import ElmoLayers)"
        )
    _user_data(doc)[_STORED] = layers
    if layers is not None:
        if _BY_HOOKS.get(id(doc.user_hooks)) is not doc:
            doc.user_hooks = dict(doc.user_hooks)
            doc.user_span_hooks = dict(doc.user_span_hooks)
            doc.user_token_hooks = dict(doc.user_token_hooks)
        _BY_HOOKS[id(doc.user_hooks)] = doc


def annotated_sharing_hooks(doc: Doc) -> Doc | None:
    """Another doc with layers whose ``user_hooks`` dict ``doc`` shares: the doc that ``span.as_doc()``
    made ``doc`` from (or another doc made from it), when ``doc`` has no layers of its own; ``None``
    when there is none (as for a doc whose annotated source is gone). A doc given ``doc._.elmo`` is
    found by its hooks (``_BY_HOOKS``); one read back (``DocBin``, ``Doc.from_bytes``: its layers were
    not set through ``doc._.elmo``) among the docs that hold the dict (``gc.get_referrers``, a scan of
    every object), looked for only when something besides ``doc`` holds it."""
    other = _BY_HOOKS.get(id(doc.user_hooks))
    if other is not None and other is not doc and other.user_hooks is doc.user_hooks:
        return other
    from spacy.tokens import Doc

    alone = Doc(doc.vocab)  # what holding one's hooks alone counts, however the interpreter counts them
    if sys.getrefcount(doc.user_hooks) <= sys.getrefcount(alone.user_hooks):
        return None
    holders = gc.get_referrers(doc.user_hooks)
    return next((d for d in holders if isinstance(d, Doc) and d is not doc and stored_layers(d) is not None), None)


def _user_data(doc: Doc) -> dict[Any, Any]:
    return doc.user_data  # spaCy's stub says dict[str, Any]; extensions keep tuple keys there


def register_extension() -> None:
    """Register ``Doc._.elmo`` (``current_layers``; ``None`` until set) unless it exists already."""
    from spacy.tokens import Doc

    if not Doc.has_extension(EXTENSION):
        Doc.set_extension(EXTENSION, getter=current_layers, setter=_store)


@srsly.msgpack_encoders("elmo_layers")
def serialize_elmo_layers(obj: Any, chain: Callable[[Any], Any] | None = None) -> Any:
    """msgpack encoder for ``ElmoLayers`` (registered with srsly; ``DocBin`` uses it)."""
    if isinstance(obj, ElmoLayers):
        return {_MSGPACK_KEY: obj.to_dict()}
    return obj if chain is None else chain(obj)


@srsly.msgpack_decoders("elmo_layers")
def deserialize_elmo_layers(obj: Any, chain: Callable[[Any], Any] | None = None) -> Any:
    """msgpack decoder for ``ElmoLayers``. It registers ``Doc._.elmo`` (``register_extension``)
    when it decodes layers: docs read back (``DocBin``, ``Doc.from_bytes``, e.g. what ``spacy
    apply`` wrote) in a process that made no elmo component then have ``doc._.elmo`` too."""
    if isinstance(obj, dict) and _MSGPACK_KEY in obj:
        register_extension()  # spaCy is imported by now: it is reading docs
        return ElmoLayers.from_dict(obj[_MSGPACK_KEY])
    return obj if chain is None else chain(obj)
