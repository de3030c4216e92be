"""``ElmoListener``: how a downstream component receives the layers the ``elmo`` component computed.

In training the ``elmo`` component runs the biLM once per batch and hands the layers, with a
callback for their gradient, to every listener (``receive``); each listener's forward returns
them for the same batch. In prediction, and when ``elmo`` is an annotating frozen component,
the listener reads ``doc._.elmo`` instead; under ``spacy debug model``, which updates no ``elmo``
component, what that component predicts. The listener's output is what the upstream produced:
one (L+1, n_tokens, 2P) array per doc; a scalar mix after it makes the task's features.

A listener gets its widths from the ``elmo`` component it is connected to; initialising one
without them (``listener_init``) raises an error that says why: no ``elmo`` component before it
(or one after it: spaCy connects a listener only to a component before its own, and initialises
the listening component first), or one that has no weights.

``replace_listener_cfg``: what ``nlp.replace_listeners`` puts in a mix listener's place (the
``elmo`` component's biLM model names it in its ``attrs``, as spacy-transformers does). A mix
listener is usually a part of the component's ``tok2vec`` (``model.tok2vec.elmo``), not all of
it: the path names its block or one holding it (spacy-transformers' ``model.tok2vec``, whose
other layers are kept); one that holds no listener is refused before anything changes, and so is
a component whose config has no ``model.tok2vec`` block, which spaCy reads for the hook
(``check_replaceable``).
"""

from __future__ import annotations

import json
import warnings
import weakref
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn, Protocol

import srsly
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.ty import ListenedToComponent
from spacy.util import dot_to_object
from thinc.api import Config, Model, Shim, deserialize_attr, serialize_attr
from thinc.types import Floats3d

from .call_stack import (
    debugged_pipeline,
    first_time,
    note_once,
    pretraining,
    replace_listeners_locals,
    running_pipeline,
    running_update,
)
from .config_errors import config_error, training_settings
from .doc_layers import EXTENSION, BiLm, ElmoLayers, annotated_sharing_hooks

#: The registered names of the listening mix and of the mix over a biLM of its own
#: (``spacy_elmo.architectures``), which ``replace_listener_cfg`` swaps.
MIX_LISTENER = "spacy-elmo.ElmoMixListener.v1"
MIX = "spacy-elmo.ElmoMix.v1"

#: Why a listener gets no layers in ``nlp.rehearse``, and what to do.
NO_REHEARSAL = (
    "nlp.rehearse runs the components in random order, so a component listening to an elmo component "
    "cannot rehearse: give it a biLM of its own first (nlp.replace_listeners), or exclude it and the "
    "elmo component (exclude=[...])"
)


@dataclass(frozen=True)
class TrainedWith:
    """The biLM a listening component was trained with, kept in its listener's ``attrs["trained_with"]`` and saved
    with the component: ``bilm`` (``None``: not known, as for a new listener or one saved by an older version), or,
    once a fine-tuned biLM has trained it, ``by``, that biLM's elmo component (weakly), whose weights change at
    every step (``trained_with`` resolves it); ``by`` is also the elmo component that linked the listener as it was
    initialised (``listener_init``), a fresh start with whatever biLM that component has then or loads. Saved as
    the biLM of the elmo component that links the listener then (``_serialize_trained_with``: a fine-tuned biLM's
    weights as that component saves them beside it), else as resolved. An elmo component refuses to feed a
    listener trained with another biLM of the same widths (``ElmoComponent._check_trained_with``)."""

    bilm: BiLm | None = None
    by: weakref.ref[_HasBiLm] | None = None

    def resolved(self) -> BiLm | None:
        upstream = None if self.by is None else self.by()
        return self.bilm if upstream is None else upstream.bilm

    def __reduce__(self) -> tuple[type, tuple[BiLm | None]]:
        """Pickled (a copy, a worker of ``nlp.pipe``) as resolved: no weak reference pickles."""
        return (TrainedWith, (self.resolved(),))


class ElmoListener(Model):
    """A layer that passes on the biLM layers of the upstream ``elmo`` component named
    ``upstream_name`` (``"*"``: any). Its dims ``nL`` (L+1) and ``nO`` (2P) are set by the
    upstream component when its weights are loaded, so they are known even when the upstream
    is frozen (spaCy issue 11547). ``connected_to`` is the name of the ``elmo`` component that
    links it (``None``: none does; one removed from the pipeline since keeps its links, as spaCy
    relinks only the components left, so initialising the listener checks the pipeline before
    trusting it). ``check_pipeline``, set by an ``elmo`` component made in a pipeline that already
    held this listener, or that spaCy linked it to in a pipeline, raises the error saying why that
    pipeline connects no ``elmo`` component before the listening one to it (``None``: neither happened).
    ``trained_with``: the biLM its component was trained with (``TrainedWith``), saved with it.

    A batch the upstream hands it (``receive``) serves one update of the listening component, and
    only a listening component that ``nlp.update`` updates gets one (not one it leaves out:
    disabled, or in its ``exclude``): the backward pass of that update is the last to use the
    batch's layers and gradient callback (which, with a fine-tuned biLM, holds the batch's
    autograd graph), and releases them (``_backprop_once``); an update without one (no annotation
    to learn from) leaves them to go with the batch's docs. Those docs (``nlp.update``'s copies,
    dropped when it returns) also hold the layers kept per doc for a prediction on them in the same
    ``nlp.update``, so no batch is held, or read, after the update or the training ends.
    """

    name = "elmo-listener"

    #: ``spacy_elmo.component``'s check of a pipeline (which imports this module, and sets it):
    #: refuses, as a ``ConfigValidationError``, a listener in it that no elmo component before its
    #: own can feed. ``None`` until an elmo component's module is imported.
    check_upstreams: ClassVar[Callable[[Language], None] | None] = None

    def __init__(self, upstream_name: str) -> None:
        super().__init__(
            name=self.name,
            forward=listener_forward,
            init=listener_init,
            dims={"nO": None, "nL": None},
            attrs={"trained_with": TrainedWith()},
        )
        self.upstream_name = upstream_name
        self.connected_to: str | None = None
        self.check_pipeline: Callable[[list[Doc]], None] | None = None
        self.upstream_bilms = _UpstreamBiLms()
        self._batch_id: int | None = None
        self._outputs: list[Floats3d] | None = None
        self._backprop: Callable | None = None
        self._batch_end: weakref.finalize | None = None
        self._received = _LayersOfLiveDocs()

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickle or copy the layer as any; in ``Language.resume_training`` (``running_pipeline``:
        ``spacy train`` runs it on the sourced components it trains, and copies their models),
        first refuse a listener of the pipeline that no elmo component before its own can feed
        (``check_upstreams``): spaCy initialises no sourced component, so a sourced listening
        component without its elmo component failed at step 0 of the training, in a traceback."""
        nlp = running_pipeline("resume_training")
        if nlp is not None and ElmoListener.check_upstreams is not None:
            ElmoListener.check_upstreams(nlp)
        return super().__reduce_ex__(protocol)

    @property
    def trained_with(self) -> BiLm | None:
        """The biLM its component was trained with (``TrainedWith``; ``None``: not known)."""
        return self.attrs["trained_with"].resolved()

    @staticmethod
    def get_batch_id(docs: Iterable[Doc]) -> int:
        """A content hash of a batch, to check that received layers belong to the docs given."""
        return sum(sum(token.orth for token in doc) + len(doc) for doc in docs)

    def receive(
        self, batch_id: int, outputs: list[Floats3d], backprop: Callable | None, docs: Iterable[Doc] = ()
    ) -> None:
        """Store the upstream's layers for the batch ``batch_id`` and its gradient callback, for
        the next update of the listening component, whose backward pass releases them; with the
        batch's ``docs``, also each doc's layers, held while the doc lives, for a prediction on
        those docs in ``nlp.update`` (a component in ``[training] annotating_components``), which
        may batch them otherwise and finds them unannotated. No ``backprop``: the listening
        component is not updated on the batch (``nlp.update`` leaves it out), so only the layers
        of ``docs`` are kept (none without them). Either way the batch received before goes: no
        update reads it after one of the elmo component it did not take part in. The batch lives
        as long as its docs (``nlp.update``'s copies, dropped when it returns) at most, so an
        update of the listening component that ran no backward pass (e.g. on a batch without its
        annotation) leaves nothing held or to read later either."""
        docs = list(docs)
        self._release_batch()
        self._received = _LayersOfLiveDocs(zip(docs, outputs))
        if backprop is not None and docs:
            self._batch_id, self._outputs, self._backprop = batch_id, outputs, backprop
            self._batch_end = weakref.finalize(docs[0], _release_batch_of, weakref.ref(self))

    def _copy(self, seen: dict[int, Model | Shim] | None = None) -> ElmoListener:
        """A new listener of the same upstream and widths: Thinc's ``Model.copy`` makes a plain ``Model``
        of every layer, whose forward then fails on the listener's missing attributes. ``nlp.replace_listeners``
        copies one where it gives a component a copy of a ``tok2vec`` component that listens to an elmo
        component: the copy is linked to the elmo component this listener is connected to, as a listener of
        that component (``pipe_name`` there), as spaCy would link it, so that the elmo component's
        listeners can be replaced in turn. Elsewhere it is connected to nothing until spaCy links it."""
        copied = ElmoListener(self.upstream_name)
        copied.attrs["trained_with"] = self.attrs["trained_with"]
        for dim in ("nO", "nL"):
            if self.has_dim(dim):
                copied.set_dim(dim, self.get_dim(dim))
        replacing = replace_listeners_locals(direct=False) or {}
        nlp, pipe_name = replacing.get("self"), replacing.get("pipe_name")
        if isinstance(nlp, Language) and isinstance(pipe_name, str) and self.connected_to in nlp.pipe_names:
            upstream = nlp.get_pipe(self.connected_to)
            if isinstance(upstream, ListenedToComponent):
                upstream.add_listener(copied, pipe_name)
        return copied

    @property
    def holds_batch(self) -> bool:
        """Whether it holds a batch ``receive`` stored for its component's update, whose backward
        pass has not run yet (it releases the batch first)."""
        return self._backprop is not None

    def _release_batch(self) -> None:
        """Drop the batch ``receive`` stored for the listening component's update (the layers kept
        per doc for a prediction on its docs stay as long as the docs)."""
        self._batch_id = self._outputs = self._backprop = None
        if self._batch_end is not None:
            self._batch_end.detach()
            self._batch_end = None


@serialize_attr.register(TrainedWith)
def _serialize_trained_with(_: TrainedWith, value: TrainedWith, name: str, model: Model) -> bytes:
    """The biLM a listener was trained with, as saved: that of the elmo component linking it now (one digest among
    the biLMs it reads, ``upstream_bilms``), else the one it was loaded with."""
    linked = {bilm.digest: bilm for bilm in model.upstream_bilms()} if isinstance(model, ElmoListener) else {}
    bilm = next(iter(linked.values())) if len(linked) == 1 else value.resolved()
    return srsly.msgpack_dumps(None if bilm is None else list(bilm))


@deserialize_attr.register(TrainedWith)
def _deserialize_trained_with(_: TrainedWith, value: bytes, name: str, model: Model) -> TrainedWith:
    msg = srsly.msgpack_loads(value)
    return TrainedWith(BiLm(*msg) if msg else None)


def _release_batch_of(listener: weakref.ref[ElmoListener]) -> None:
    """Release the batch of ``listener`` (if it lives) as the batch's docs go."""
    found = listener()
    if found is not None:
        found._release_batch()


class _LayersOfLiveDocs(weakref.WeakKeyDictionary[Doc, Floats3d]):
    """The layers a listener received for each doc of a batch, each held while its doc lives.
    Pickled empty, as pickle takes no weak reference (a listener pickled between an elmo
    component's update and its own cannot take part in that update anyway)."""

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (_LayersOfLiveDocs, ())


def listener_init(model: ElmoListener, X: list[Doc] | None = None, Y: None = None) -> None:
    """Refuse to initialise the listening component's layers without the upstream's widths: a
    ``ConfigValidationError``, which ``spacy train`` prints as one block, not a traceback.
    The sample docs ``X`` are kept as such (``_SAMPLE_DOCS``): shape inference runs the layer
    on them next, unannotated. Initialising is a fresh start, in ``nlp.initialize()`` or of the
    listening component alone: what it was trained with is now the biLM it listens to
    (``_UpstreamBiLms.listened_to``), not the one its old weights were trained with."""
    _SAMPLE_DOCS.update(X or [])
    if model.has_dim("nO") and model.has_dim("nL"):
        model.attrs["trained_with"] = model.upstream_bilms.listened_to()
        return
    if model.check_pipeline is not None:
        model.check_pipeline(X or [])  # names an elmo component after the listening one, or none left
    if model.connected_to is None:
        _refuse_unconnected(model)
    _check_running_pipeline(model)  # the elmo component it names may be removed, or moved after it, since
    _refuse(*_why_no_weights(model.connected_to))


def _refuse_unconnected(model: ElmoListener) -> NoReturn:
    """Refuse ``model``, which no elmo component is connected to: say to add one before its component."""
    upstream = "an elmo component" if model.upstream_name == "*" else f"the elmo component {model.upstream_name!r}"
    _refuse(
        ["nlp", "pipeline"],
        f"ELMo listener (upstream {model.upstream_name!r}) is connected to no elmo component: the pipeline "
        f"needs {upstream} before the listening component: add it with "
        f"{add_elmo_call(model.upstream_name, '<the listening component>')}, or list it before that "
        "component in [nlp] pipeline",
    )


def _why_no_weights(upstream: str) -> tuple[list[str], str]:
    """The setting and the message that say why the elmo component ``upstream``, which a listener
    being initialised is connected to, has no weights yet, and what to do: ``spacy train`` does not
    initialise it in ``[training] frozen_components``; ``spacy pretrain`` initialises no component
    (its ``create_pretraining_model`` is up the call stack); else it was left out of the
    initialisation (disabled: ``nlp.select_pipes``, ``[nlp] disabled``) or the listening component
    was initialised before it."""
    training = training_settings()
    if training is not None and upstream in training["frozen_components"]:
        return ["training", "frozen_components"], (
            f"ELMo listener: the elmo component {upstream!r} it listens to has no weights: it must be "
            "initialised before the listening component, and spaCy does not initialise a component in [training] "
            f"frozen_components, so a frozen {upstream!r} must be sourced from a trained pipeline (or keep it "
            "trainable: its model's frozen = true already keeps the biLM fixed)"
        )
    if pretraining():
        return ["pretraining", "component"], (
            f"ELMo listener: spacy pretrain initialises no component, so the elmo component {upstream!r} this layer "
            "listens to has no biLM weights and the layer cannot be pretrained: the biLM is the pretrained part "
            "(to adapt it to your text, continue it with elmo pretrain and give the result as --paths.elmo); "
            "train the pipeline without [initialize] init_tok2vec"
        )
    return ["components", upstream], (
        f"ELMo listener: the elmo component {upstream!r} it listens to has no weights: it loads them when it is "
        f"initialised, which must come before the listening component: leave {upstream!r} enabled in "
        "nlp.initialize() (not disabled by nlp.select_pipes or [nlp] disabled), or load them first with "
        f'nlp.get_pipe("{upstream}").initialize(lambda: [], nlp=nlp)'
    )


def _refuse(setting: list[str], message: str) -> NoReturn:
    raise config_error("An ELMo listener gets no layers", setting, message)


def add_elmo_call(upstream: str, before: str) -> str:
    """The ``nlp.add_pipe`` call that adds the elmo component a listener of ``upstream`` ("*":
    any) listens to, before the component ``before``."""
    name = "" if upstream in ("*", "elmo") else f', name="{upstream}"'
    return f'nlp.add_pipe("elmo"{name}, before="{before}")'


def listener_forward(model: ElmoListener, docs: list[Doc], is_train: bool) -> tuple[list[Floats3d], Callable]:
    if is_train and model._batch_id is not None:
        batch_id = model.get_batch_id(docs)
        if batch_id != model._batch_id and docs and all(doc in model._received for doc in docs):
            _refuse_retokenized_batch(model)
        if batch_id != model._batch_id:
            raise ValueError(
                f"ELMo listener got a batch (id {batch_id}) other than the one the elmo component "
                f"computed layers for (id {model._batch_id}): the upstream component must be "
                f"updated on the same batch just before this one, as nlp.update does ({NO_REHEARSAL})"
            )
        assert model._outputs is not None and model._backprop is not None, "receive() sets all three"
        return model._outputs, _backprop_once(model, model._backprop)
    debugged = _debug_model_layers(model, docs, is_train) if any(_annotation(doc) is None for doc in docs) else None
    if debugged is not None:
        return debugged, lambda d_layers: []
    return [_doc_layers(model, doc, is_train) for doc in docs], lambda d_layers: []


def _refuse_retokenized_batch(model: ElmoListener) -> NoReturn:
    """Refuse the batch that ``model`` received, whose docs (the same ones) have other tokens now: a
    component that ``nlp.update`` (up the call stack) has annotate the batch between the elmo component and
    the listening one retokenized them (``merge_entities``: its ``retokenizes``), and the layers, one row per
    token they were computed for, fit them no more (spaCy's own listeners refuse such a batch too, E953).
    Said instead of the error of a batch from elsewhere, which names ``nlp.rehearse``."""
    update, upstream = running_update(), model.connected_to or model.upstream_name
    names = []
    if update is not None and upstream in update.nlp.pipe_names:
        nlp = update.nlp
        after = nlp.pipe_names[nlp.pipe_names.index(upstream) + 1 :]
        names = [name for name in after if name in update.annotates and nlp.get_pipe_meta(name).retokenizes]
    which = ", ".join(map(repr, names))
    raise ValueError(
        f"ELMo listener: the tokens of the training docs changed after the elmo component {upstream!r} computed their "
        f"layers, one row per token, so these fit them no more: {which or 'a component'} retokenized them as nlp.update "
        f"had it annotate the batch ([training] annotating_components); move {which or 'it'} (with the components it "
        f"reads from) before {upstream!r} in the pipeline, or after the components listening to {upstream!r}"
    )


def _backprop_once(model: ElmoListener, backprop: Callable) -> Callable:
    """``backprop``, the gradient callback of the batch ``model`` received, which first releases
    that batch: the backward pass of the listening component's update is its last use. A second
    training pass on the batch (an update of the listening component without one of the elmo
    component before it) is refused as a batch without layers (``_annotated_layers``)."""

    def release_and_backprop(d_layers: list[Floats3d]) -> list[Doc]:
        model._release_batch()
        return backprop(d_layers)

    return release_and_backprop


def _doc_layers(model: ElmoListener, doc: Doc, is_train: bool) -> Floats3d:
    """The layers ``model`` received for ``doc`` in this ``nlp.update`` when no elmo component
    annotated ``doc`` and the listening component predicts (a component in ``[training]
    annotating_components`` predicts on the batch after its update; spaCy's own listeners read
    zeros there); else ``doc._.elmo``'s. In training they serve through ``receive``'s batch only,
    so no update reads them without their gradient callback."""
    layers = model._received.get(doc) if not is_train and _annotation(doc) is None else None
    return _annotated_layers(model, doc, is_train) if layers is None else layers


def _annotation(doc: Doc) -> Any:
    """``doc._.elmo`` (an ``ElmoLayers``), or ``None`` when no elmo component annotated ``doc``."""
    return doc._.get(EXTENSION) if Doc.has_extension(EXTENSION) else None


def _debug_model_layers(model: ElmoListener, docs: list[Doc], is_train: bool) -> list[Floats3d] | None:
    """The layers of ``docs`` from the elmo component ``model`` is connected to, when ``spacy debug
    model`` runs the listening component (``None`` elsewhere). That command updates, before the
    component it analyses, the upstream of spaCy's own listeners alone (``Tok2VecListener``,
    ``TransformerListener``), so no elmo component hands this listener the batch or annotates it.
    Its ``nlp`` is read from that command's running call (``debugged_pipeline``). No gradient
    reaches the biLM: the first update of the listener says so."""
    nlp = debugged_pipeline()
    if nlp is None or model.connected_to not in nlp.component_names:
        return None
    upstream = nlp.get_pipe(model.connected_to)
    if not isinstance(upstream, TrainablePipe):
        return None
    if is_train:
        note_once(
            model,
            f"ELMo listener: spacy debug model updates no elmo component before the component it analyses, so the "
            f"listener reads the layers {model.connected_to!r} predicts; no gradient reaches the biLM",
        )
    return upstream.predict(docs)


def _annotated_layers(model: ElmoListener, doc: Doc, is_train: bool) -> Floats3d:
    """``doc._.elmo``'s layers; zeros for an unannotated doc outside training.

    Zeros are what spaCy's own listeners give there: the sample docs of ``initialize`` are not
    annotated, and shape inference runs the layer on them. Any other doc without layers is one
    that the ``elmo`` component did not run on (disabled, excluded, or not in the pipeline; or a
    new doc that ``span.as_doc()`` made), so its component predicts from zero ELMo features: the
    listener warns, once per cause (``_warn_of_zero_features``).
    """
    annotation = _annotation(doc)
    if annotation is not None:
        if model.upstream_name not in ("*", annotation.component) and annotation.component is not None:
            raise ValueError(
                f"ELMo listener (upstream {model.upstream_name!r}) found in doc._.elmo the layers of the elmo "
                f"component {annotation.component!r}, not of {model.upstream_name!r}: if {annotation.component!r} "
                f"is {model.upstream_name!r} renamed, set the listener's upstream to {annotation.component!r} (or "
                f'"*"; in a saved pipeline, upstream in its config.cfg); if the pipeline has two elmo components, '
                "the later one replaced the layers: keep one, or listen to the last one"
            )
        _check_widths_of(model, annotation.layers)
        _check_bilm_of(model, annotation)
        return model.ops.asarray3f(annotation.layers)
    if is_train:
        _check_running_pipeline(model)
        raise ValueError(
            "ELMo listener: no layers for this training batch: the elmo component was neither "
            f"updated on it nor annotated it{_left_out_of_update(model)}"
        )
    if not model.has_dim("nO") or not model.has_dim("nL"):
        raise ValueError(
            f"ELMo listener (upstream {model.upstream_name!r}) has no widths: the elmo component it listens to "
            "must be in the pipeline under that name and load its weights (nlp.initialize, or a trained "
            "pipeline) before this component is initialised; spaCy does not initialise a component in "
            "[training] frozen_components, so a frozen elmo must be sourced from a trained pipeline "
            "(or keep it trainable: its model's frozen = true already keeps the biLM fixed)"
        )
    _READ_WITHOUT_LAYERS[doc] = model
    if doc not in _SAMPLE_DOCS:
        _warn_of_zero_features(model, doc)
    return model.ops.alloc3f(model.get_dim("nL"), len(doc), model.get_dim("nO"))


def _warn_of_zero_features(model: ElmoListener, doc: Doc) -> None:
    """Warn, once per listener and cause, that its component predicts from zero ELMo features on
    ``doc``, which has no layers: a doc made by ``span.as_doc()`` from an annotated one
    (``annotated_sharing_hooks``), or one that the elmo component did not run on."""
    if annotated_sharing_hooks(doc) is not None:
        if first_time(model, "zero ELMo features of a span.as_doc()"):
            warnings.warn(
                f"ELMo listener (upstream {model.upstream_name!r}): this doc was made by span.as_doc() from a doc the "
                "elmo component annotated, and has no ELMo layers (spaCy copies no doc._.elmo to the new doc, and the "
                "elmo component did not run on it), so the listening component predicts from zero ELMo features, "
                "which gives poor predictions: run the pipeline on the new doc (nlp(span.as_doc())), or give it the "
                "span's layers first: new._.elmo = ElmoLayers.of_span(span) (from spacy_elmo import ElmoLayers) (said once "
                "per listener)",
            )
    elif first_time(model, "zero ELMo features"):
        upstream = "an elmo component" if model.upstream_name == "*" else f"the elmo component {model.upstream_name!r}"
        keep = "the elmo component" if model.upstream_name == "*" else repr(model.upstream_name)
        warnings.warn(
            f"ELMo listener (upstream {model.upstream_name!r}): {upstream} did not run on these docs (no doc._.elmo), "
            "so the listening component predicts from zero ELMo features, which gives poor predictions: leave "
            f"{keep} out of disable= and exclude= (spacy.load, nlp.select_pipes, nlp.pipe) and run it before the "
            "listening component; a doc joined by Doc.from_docs has none either (spaCy drops doc._.elmo there, its "
            "warning W101): run the elmo component on the joined doc (said once per listener)",
        )


def _check_widths_of(model: ElmoListener, layers: Floats3d) -> None:
    """Refuse a doc's layers (``doc._.elmo``) of other widths than the listener's, which its component
    was trained on: another biLM computed them (docs that another pipeline annotated, e.g. read back
    from what ``spacy apply`` wrote), and the mix or the component's weights would fail on them in
    Thinc or blis with a bare shape error."""
    own = {dim: model.maybe_get_dim(dim) for dim in ("nL", "nO")}
    found = {"nL": int(layers.shape[0]), "nO": int(layers.shape[2])}
    if None not in own.values() and found != own:
        raise ValueError(
            f"ELMo listener (upstream {model.upstream_name!r}): doc._.elmo holds layers of {describe_widths(found, own)}, "
            f"but the listening component was trained on {describe_widths(own, found)}: another biLM computed them "
            "(docs that another pipeline annotated, e.g. read from a DocBin): run this pipeline's elmo component on the "
            "docs (leave it enabled), or use the pipeline whose biLM made them"
        )


def _check_bilm_of(model: ElmoListener, annotation: ElmoLayers) -> None:
    """Refuse a doc's layers (``doc._.elmo``) that another biLM computed than that of an elmo component ``model``
    is linked to (``upstream_bilms``), though of its widths: docs another pipeline annotated (e.g. read from a
    DocBin) while this one's elmo component did not run (disabled), which the listening component would read in
    place of its own biLM's, silently. Where none links it (``spacy.load(..., exclude=["elmo"])``, or one added while
    the listening component was disabled, which spaCy links no listener of), the biLM it was trained with
    (``trained_with``) is the one to compare with. Layers that record no biLM (older versions', a fine-tuned
    biLM's) pass without asking the elmo components for theirs (a digest reads every weight, again after each
    step)."""
    found = annotation.bilm
    if found is None:
        return
    own = model.upstream_bilms()
    if own and all(found.digest != bilm.digest for bilm in own):
        upstream, names = model.connected_to or model.upstream_name, " or ".join(dict.fromkeys(map(str, own)))
        raise ValueError(
            f"ELMo listener (upstream {model.upstream_name!r}): doc._.elmo holds layers that the biLM {found} "
            f"computed, not the biLM {names} of the elmo component {upstream!r} it listens to (docs that another "
            f"pipeline annotated, e.g. read from a DocBin): run this pipeline's elmo component {upstream!r} on the "
            "docs (leave it enabled), or use the pipeline whose biLM made them"
        )
    trained = None if own else model.trained_with
    if trained is not None and found.digest != trained.digest:
        raise ValueError(
            f"ELMo listener (upstream {model.upstream_name!r}): doc._.elmo holds layers that the biLM {found} "
            f"computed, not the biLM {trained} its component was trained with, and no elmo component of the pipeline "
            "links it (one added while the listening component was disabled, which spaCy links no listener of, or "
            "docs that another pipeline annotated): run an elmo component of the biLM it was trained with on the "
            "docs, or train the listening component again with the biLM that made them"
        )


class _HasBiLm(Protocol):
    """An elmo component, as a listener asks it for its biLM."""

    @property
    def bilm(self) -> BiLm | None: ...


class _UpstreamBiLms:
    """The biLMs of the elmo components that link a listener, held weakly: one per pipeline that holds its
    component (spaCy shares a component sourced by ``nlp.add_pipe(..., source=...)`` with the pipeline it came
    from), each of whose layers it reads. Pickled (the worker of an ``nlp.pipe``, a copy) as the biLMs they have
    then, which stay the copy's."""

    def __init__(self, kept: tuple[BiLm, ...] = ()) -> None:
        self._linked: weakref.WeakSet[_HasBiLm] = weakref.WeakSet()
        self._kept = kept

    def link(self, upstream: _HasBiLm) -> None:
        self._linked.add(upstream)

    def unlink(self, upstream: _HasBiLm) -> None:
        self._linked.discard(upstream)

    def __call__(self) -> list[BiLm]:
        """The biLMs (of those linked, those with weights)."""
        return [*self._kept, *(bilm for upstream in list(self._linked) if (bilm := upstream.bilm) is not None)]

    def listened_to(self) -> TrainedWith:
        """The record of a listener initialised now: the one elmo component linking it, whose biLM it is
        resolved to when read (no digest, which reads every weight, is computed at initialisation), else the
        one biLM of those linking it, else none known."""
        linked = list(self._linked)
        if len(linked) == 1:
            return TrainedWith(by=weakref.ref(linked[0]))
        bilms = list({bilm.digest: bilm for bilm in self()}.values())
        return TrainedWith(bilms[0]) if len(bilms) == 1 else TrainedWith()

    def __reduce__(self) -> tuple[type, tuple[tuple[BiLm, ...]]]:
        return (_UpstreamBiLms, (tuple(self()),))


def describe_widths(widths: Mapping[str, int | None], other: Mapping[str, int | None]) -> str:
    """``width 2P = nO``, with the number of layers ``nL`` (L+1) when it differs from ``other``'s."""
    layers = f" in {widths['nL']} layers (L+1)" if widths["nL"] != other["nL"] else ""
    return f"width 2P = {widths['nO']}{layers}"


def _left_out_of_update(model: ElmoListener) -> str:
    """Why the elmo component of ``model`` handed it no batch in the ``nlp.update`` up the call stack,
    and what to do: it is disabled there (``nlp.select_pipes(enable=[...])`` around the update,
    spaCy's way to train one component, or ``[nlp] disabled``), or in the update's ``exclude`` without
    annotating; else (no such update, e.g. ``nlp.rehearse``) the ways a batch reaches a listener."""
    update, upstream = running_update(), model.connected_to or model.upstream_name
    if update is not None and upstream in update.nlp.disabled:
        return (
            f": {upstream!r} is disabled (nlp.select_pipes or [nlp] disabled), so nlp.update does not run it: enable "
            f"it beside the components that listen to it (nlp.select_pipes(enable=[{upstream!r}, ...])); a frozen "
            "biLM stays as it is"
        )
    if update is not None and upstream in update.exclude:
        return (
            f": nlp.update excludes {upstream!r} (its exclude=[...]): leave it out of exclude, or, where its biLM is "
            f"frozen, let it annotate the batch (annotates=[{upstream!r}]; spacy train: [training] "
            "annotating_components)"
        )
    return f" (list a frozen elmo component in [training] annotating_components; {NO_REHEARSAL})"


def _check_running_pipeline(model: ElmoListener) -> None:
    """In ``nlp.initialize()`` or ``nlp.update`` (up the call stack), refuse its pipeline as
    ``nlp.initialize()``'s elmo components do when a listener in it has no elmo component before
    its own: ``nlp.rename_pipe``, ``nlp.remove_pipe`` or a move took it away since it was connected
    (``ElmoListener.check_upstreams``; ``model.connected_to`` may still name it, as spaCy drops a
    removed component's links to nothing), where no elmo component of the pipeline is left to say
    so, or, where no elmo component's module was imported, so that none was made, the pipeline
    never had one (``spacy.load(..., exclude=["elmo"])``): ``model`` is connected to none. Else
    nothing is wrong with the pipeline itself."""
    nlp = running_pipeline("update") or running_pipeline("initialize")
    if nlp is None:
        return
    if ElmoListener.check_upstreams is None:
        _refuse_unconnected(model)
    ElmoListener.check_upstreams(nlp)


#: The docs that a listener read zero ELMo features for (no ``doc._.elmo``), with that listener.
_READ_WITHOUT_LAYERS: weakref.WeakKeyDictionary[Doc, ElmoListener] = weakref.WeakKeyDictionary()

#: The sample docs listeners were initialised with, which shape inference reads unannotated.
_SAMPLE_DOCS: weakref.WeakSet[Doc] = weakref.WeakSet()


def check_not_read_before(doc: Doc, component: str, its_listeners: list[ElmoListener]) -> None:
    """Refuse to annotate ``doc`` from the elmo component ``component`` when a listener of it that
    it has not connected (``its_listeners``: spaCy connects those of the components after it) has
    already predicted on the doc from zero features: its component comes before ``component`` in
    the pipeline (e.g. both sourced from a trained pipeline in that order), which no check at
    creation or initialisation sees. A connected listener that read the doc while ``component``
    was disabled is no error. A listener of another pipeline that lacks ``component`` looks the
    same from here (neither is connected to it), so the error names that cause too."""
    listener = _READ_WITHOUT_LAYERS.get(doc)
    if listener is not None and listener.upstream_name in ("*", component) and listener not in its_listeners:
        raise ValueError(
            f"a component listening to the elmo component {component!r} ran on this doc before {component!r} "
            f"did, and predicted from zero ELMo features: put {component!r} before the components that listen "
            f"to it in the pipeline (nlp.pipe_names), or, if the doc came from another pipeline without "
            f"{component!r} (spacy.load(..., exclude=[{component!r}])), run this one on a new doc, nlp(doc.text)"
        )


def replace_listener_cfg(bilm_cfg: dict[str, Any], tok2vec_cfg: dict[str, Any]) -> dict[str, Any]:
    """The config that ``nlp.replace_listeners`` puts at a listener path: the block there with its
    mix listener turned into an ``ElmoMix.v1`` over the ``elmo`` component's biLM, with that
    listener's mix settings. The path names the listener's block (``["model.tok2vec.elmo"]``) or a
    block holding it (spacy-transformers' ``["model.tok2vec"]``: the whole tok2vec, its other
    layers' settings kept)."""
    replacing = replace_listeners_locals() or {}
    block = _block_to_replace(replacing)
    if block is None:
        block = next(_listener_cfgs(tok2vec_cfg), ("", {"@architectures": MIX_LISTENER}))[1]
        return _with_own_bilm(block, bilm_cfg, None)
    return _with_own_bilm(block, bilm_cfg, replacing.get("tok2vec_name"))


def _with_own_bilm(cfg: Any, bilm_cfg: dict[str, Any], upstream: str | None) -> Any:
    """``cfg`` with each mix listener block in it that listens to the elmo component ``upstream``
    (``None``: any) an ``ElmoMix.v1`` over ``bilm_cfg`` of its mix settings."""
    if not isinstance(cfg, dict):
        return cfg
    if cfg.get("@architectures") == MIX_LISTENER and (upstream is None or _listens_to(cfg, upstream)):
        settings = {k: v for k, v in cfg.items() if k in ("layer_norm", "dropout", "l2")}
        return {"@architectures": MIX, "bilm": bilm_cfg, **settings}
    return {key: _with_own_bilm(value, bilm_cfg, upstream) for key, value in cfg.items()}


def _block_to_replace(replacing: dict[str, Any]) -> dict[str, Any] | None:
    """The config block that ``nlp.replace_listeners`` (the caller, whose locals are ``replacing``:
    ``replace_listeners_locals``) replaces now, at its local ``listener_path`` (``None``: another
    caller, ``{}``, or a component config without mix listener blocks).

    spaCy hands this hook the component's ``model.tok2vec`` config whatever the paths are, calls
    it once per path, and writes each new config before the next call; the model is changed right
    anyway. So on its first call, before anything changed, all the paths (the caller's
    ``listeners``) are checked: each must name a block holding mix listeners, and each listener
    must be in one of them (``_check_listener_paths``); else a config that no longer fits the
    weights would be written. So is an elmo component (the caller's ``tok2vec_name``) whose biLM
    (``tok2vec_model``) has no weights yet (``_check_has_weights``)."""
    names = ("pipe_cfg", "listeners", "pipe_name", "listener_path")
    pipe_cfg, paths, pipe_name, path = (replacing.get(name) for name in names)
    if not isinstance(pipe_cfg, Config) or not isinstance(path, str):
        return None
    paths = list(paths or [])
    upstream = replacing.get("tok2vec_name")
    found = _listener_paths(pipe_cfg, upstream)
    if not found:
        return None
    if paths and path == paths[0]:  # the first call: distinct paths make the later ones other paths
        _check_listener_paths(found, paths, pipe_name)
        _check_has_weights(replacing.get("tok2vec_model"), upstream, pipe_name)
    return dot_to_object(pipe_cfg, path)


def check_replaceable(replacing: dict[str, Any], upstream: str, listening: Container[str]) -> None:
    """Refuse ``nlp.replace_listeners`` (of locals ``replacing``, reading the ``listener_map`` of the elmo component
    ``upstream``, whose listening components are ``listening``) of a listening component whose config
    has no ``model.tok2vec`` block, before anything changes: spaCy hands that block to the hook
    (``replace_listener_cfg``), and failed with a bare ``KeyError: 'tok2vec'`` (a spaCy ``tok2vec``
    component listening to ``upstream``, whose listener is at ``model.elmo``)."""
    nlp, pipe_name, paths = (replacing.get(name) for name in ("self", "pipe_name", "listeners"))
    if not isinstance(nlp, Language) or not isinstance(pipe_name, str) or pipe_name not in listening or not paths:
        return
    pipe_cfg = nlp.get_pipe_config(pipe_name)
    model_cfg = pipe_cfg.get("model")
    if not isinstance(model_cfg, dict) or "tok2vec" in model_cfg:
        return
    found = _listener_paths(pipe_cfg, upstream)
    at = ", ".join(found) or "its model"
    pipe = nlp.get_pipe(pipe_name)
    theirs: list[str] = pipe.listening_components if isinstance(pipe, ListenedToComponent) else []
    copied = json.dumps([f"model.tok2vec{path[len('model') :]}" for path in found if path.startswith("model.")])
    instead = (
        f"to make a component listening to {pipe_name!r} stand alone, give it a copy of {pipe_name!r} "
        f'(nlp.replace_listeners("{pipe_name}", "{theirs[0]}", ["model.tok2vec"])), then a biLM of its own '
        f'(nlp.replace_listeners("{upstream}", "{theirs[0]}", {copied}))'
        if theirs
        else f"give {pipe_name!r} a biLM of its own in its config instead (spacy-elmo.ElmoMix.v1 at {at})"
    )
    raise ValueError(
        f"nlp.replace_listeners cannot replace the ELMo listener of {pipe_name!r} (at {at}): spaCy hands the hook "
        f"the listening component's model.tok2vec block, and the config of {pipe_name!r} has none; {instead}"
    )


def _check_has_weights(bilm: Any, upstream: Any, pipe_name: Any) -> None:
    """Refuse to copy the biLM ``bilm`` of the elmo component ``upstream`` into ``pipe_name`` before
    its weights are loaded (its widths are set with them): the copy has no loader of its own, so
    initialising ``pipe_name`` would load the shipped model into it, not the one given to ``upstream``."""
    if isinstance(bilm, Model) and bilm.maybe_get_dim("nO") is None:
        raise ValueError(
            f"nlp.replace_listeners: the elmo component {upstream!r} has no biLM weights yet, so {pipe_name!r} would "
            f"get a copy without them, which would load the shipped model, not the one given to {upstream!r}: load "
            f"them first ({load_weights_advice(str(upstream))}), then replace the listeners"
        )


def load_weights_advice(name: str) -> str:
    """How to give the ``elmo`` component ``name`` its biLM weights, in a new pipeline and in a trained one."""
    return (
        f"in a new pipeline, call nlp.initialize() first (before anything runs the pipeline, such as an "
        f"entity_ruler's phrase patterns); in a pipeline whose other components are trained, load them alone with "
        f'nlp.get_pipe("{name}").initialize(lambda: [], nlp=nlp) (nlp.initialize() re-initialises every component, '
        f"trained weights included)"
    )


def _check_listener_paths(found: list[str], paths: list[str], pipe_name: Any) -> None:
    """Refuse ``paths`` unless each names a block holding mix listeners (at the paths ``found``), the
    listener's own or one around it, and each listener is in one of them only."""
    holding = {path: [at for at in found if at == path or at.startswith(f"{path}.")] for path in paths}
    wrong = [path for path, held in holding.items() if not held]
    covered = [at for held in holding.values() for at in held]
    if wrong or len(paths) > len(set(paths)) or len(covered) > len(set(covered)) or len(set(covered)) < len(found):
        listeners = "listener of {!r} is" if len(found) == 1 else "listeners of {!r} are"
        raise ValueError(
            f"nlp.replace_listeners: the ELMo {listeners.format(pipe_name)} at {', '.join(found)}, not "
            f"{', '.join(wrong or paths)}: pass {json.dumps(found)}"
        )


def _listens_to(block: dict[str, Any], upstream: Any) -> bool:
    """Whether the mix listener config ``block`` listens to the elmo component ``upstream`` (its
    ``upstream``, ``"*"`` where the block leaves it out, as the layer's default is)."""
    return block.get("upstream", "*") in ("*", upstream)


def _listener_paths(cfg: Any, upstream: Any) -> list[str]:
    """The dotted paths in ``cfg`` of the mix listener blocks that listen to the elmo component ``upstream``."""
    return [path for path, block in _listener_cfgs(cfg) if _listens_to(block, upstream)]


def _listener_cfgs(cfg: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """The mix listener blocks in ``cfg`` with their dotted paths in it."""
    if isinstance(cfg, dict):
        if cfg.get("@architectures") == MIX_LISTENER:
            yield path, cfg
            return
        for key, value in cfg.items():
            yield from _listener_cfgs(value, f"{path}.{key}" if path else str(key))
