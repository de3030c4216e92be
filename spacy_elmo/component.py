"""The ``elmo`` pipeline component: runs the biLM once per batch for every listening component.

``nlp.add_pipe("elmo")`` (the factory is ``spacy_elmo.factory``'s, registered through the
``spacy_factories`` entry point). Prediction stores all L+1 layers of every token in
``doc._.elmo`` (``ElmoLayers``). In training, ``update``
computes the layers of the batch and hands them to each downstream ``ElmoListener``; with the
default frozen biLM they come from the activation cache after the first epoch and no gradient
flows back. The weights are loaded at ``[initialize]`` by a registered loader and saved inside
the pipeline as ``<component>/bilm/{config.json,model.safetensors}`` (before they are loaded: as
``<component>/no-bilm.txt``, a note that there are none). Without a loader the
shipped model is loaded. With ``token_vectors`` on, prediction also sets ``doc.tensor`` and the
vector / similarity hooks (``token_vectors.py``).
"""

import functools
import shutil
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.pipeline.tok2vec import Tok2Vec, Tok2VecListener
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.util import ensure_path
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer
from thinc.types import Floats3d

from hf_elmo import ElmoModel
from hf_elmo.configuration_elmo import SPACY_PREFIX
from hf_elmo.fileio import check_writable, ensure_free_space
from hf_elmo.loading import BILM_FOLDER, NO_BILM_FILE
from hf_elmo.messages import described, is_number, some_of
from hf_elmo.modeling_elmo import check_config_reads_char_ids
from hf_elmo.output_folders import build_aside, others_files, output_kind

from .bilm import (
    bilm_of,
    config_widths,
    get_elmo,
    is_elmo_bilm,
    load_weights,
    loaded_at_setting,
    missing_weights_loader,
    model_loader,
    runnable_widths,
    serialized_bilm,
    serialized_config,
)
from .cache import ActivationCache, doc_key
from .call_stack import (
    first_time,
    in_speed_benchmark,
    note_once,
    pipe_being_added,
    replace_listeners_locals,
    running_components,
    running_pipeline,
    running_update,
)
from .config_errors import (
    check_frozen_elmo_annotates,
    check_setting,
    check_sourced_elmo_loads_nothing,
    config_error,
    refuse_setting,
    sourced_from,
    training_pipeline,
    training_settings,
)
from .doc_layers import EXTENSION, BiLm, ElmoLayers, register_extension
from .listener import (
    NO_REHEARSAL,
    ElmoListener,
    TrainedWith,
    add_elmo_call,
    check_not_read_before,
    check_replaceable,
    describe_widths,
    load_weights_advice,
)
from .loader import LOADER_NAME, loader_name_advice, names_a_model
from .shim import bilm_record
from .token_vectors import set_token_vectors


class ElmoComponent(TrainablePipe):
    """Computes the ELMo biLM layers of docs for ``doc._.elmo`` and for listening components."""

    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "elmo",
        *,
        cache_mb: float = 512,
        cache_dir: str | Path | None = None,
        token_vectors: bool | None = None,
    ) -> None:
        check_setting(
            is_elmo_bilm(model),
            f"the {name} component",
            "model",
            f"must be a spacy-elmo.ElmoBiLm architecture (the biLM), got {model.name!r}",
        )
        register_extension()
        self.vocab = vocab
        self.model = model
        self.name = name
        self.cfg: dict[str, object] = {"token_vectors": token_vectors}
        self.listener_map: dict[str, list[ElmoListener]] = {}
        self.cache = ActivationCache(cache_mb, cache_dir)
        self._backward_by: ElmoListener | None = None
        self._step_after_backward: Optimizer | None = None
        self._tensor_readers_checked = _CheckedComponents()

    # -- listeners -------------------------------------------------------------------------
    @property
    def listener_map(self) -> dict[str, list[ElmoListener]]:
        """The listeners of each listening component, which this component hands its layers to.
        ``nlp.replace_listeners`` reads it first: a listening component it cannot give a biLM of its
        own is refused then, before anything changes (``check_replaceable``)."""
        replacing = replace_listeners_locals()
        if replacing is not None:
            check_replaceable(replacing, self.name, self._listener_map)
        return self._listener_map

    @listener_map.setter
    def listener_map(self, links: dict[str, list[ElmoListener]]) -> None:
        """Link the listeners of ``links``; one linked before and not now is connected to no elmo
        component (its ``connected_to``, ``None``) until one adds it again. spaCy's
        ``_link_components`` sets this to ``{}`` and adds the listeners it finds again whenever a
        component is added, removed or renamed: after ``nlp.rename_pipe`` of this component, its
        listeners of the old name are linked to nothing, and say so, not that the old name's
        component has no weights. Linked into a pipeline of another vocab (sourced from another
        pipeline), a biLM of another language's rules than that pipeline's says so, as ``initialize``
        says it of the pipeline it loads the biLM in (``_warn_other_language``), once per language."""
        # both only where spaCy links the pipeline (add, remove or rename a pipe, initialize, init_nlp), not at
        # the relinking of every update (_link_listeners_of_update), which need not walk the call stack for them
        linking = running_pipeline("_link_components")
        if linking is not None:
            _check_before_training(self.name)  # spacy train links the pipeline before it initialises it
            if linking.vocab is not self.vocab:
                elmo = get_elmo(self.model)
                if elmo is not None and first_time(self, f"sourced into a pipeline of language {linking.vocab.lang!r}"):
                    _warn_other_language(self.name, elmo, linking.vocab.lang)
        kept = [listener for found in links.values() for listener in found]
        for found in getattr(self, "_listener_map", {}).values():
            for listener in found:
                if not any(listener is other for other in kept):
                    listener.connected_to = None
                    listener.upstream_bilms.unlink(self)
        self._listener_map = links

    @property
    def listeners(self) -> list[ElmoListener]:
        """The listener layers of all downstream components."""
        return [m for c in self.listening_components for m in self.listener_map[c]]

    @property
    def listening_components(self) -> list[str]:
        return list(self.listener_map.keys())

    def add_listener(self, listener: ElmoListener, component_name: str) -> None:
        """Register a downstream listener (usually internal); sets its widths if known. A listener refused then
        (``_set_widths``) of a component that ``nlp.add_pipe`` (up the call stack) adds is taken out again with it
        (``_take_back_added``)."""
        if get_elmo(self.model) is not None:
            try:
                self._set_widths(listener, component_name)
            except ValueError:
                _take_back_added(component_name)
                raise
        listener.connected_to = self.name
        listener.upstream_bilms.link(self)
        self.listener_map.setdefault(component_name, [])
        if listener not in self.listener_map[component_name]:
            self.listener_map[component_name].append(listener)

    def remove_listener(self, listener: ElmoListener, component_name: str) -> bool:
        """Unregister ``listener`` (connected to nothing then). The component's list is replaced, not changed in place:
        ``nlp.replace_listeners`` removes each listener while it iterates over that list, and
        would skip every second listener of a component."""
        if listener in self.listener_map.get(component_name, []):
            links = {
                name: [m for m in found if m is not listener] if name == component_name else found
                for name, found in self.listener_map.items()
            }
            self.listener_map = {name: found for name, found in links.items() if found}
            return True
        return False

    def find_listeners(self, component: Any) -> None:  # any pipe of the pipeline
        """Add the ``ElmoListener`` layers of ``component`` whose upstream is this one or ``*``.
        In ``spacy train``, where spaCy links the pipeline after reading ``[training]``, a frozen
        component that a trained listener would get no layers from is a config error then
        (``check_frozen_elmo_annotates``). Linked by spaCy's ``_link_components`` (up the call stack,
        on every ``nlp.add_pipe``, ``remove_pipe`` and ``rename_pipe``), each gets a ``_PipelineCheck``
        of that pipeline: initialising its component alone after this component was removed from it,
        or added again after it, says so as ``nlp.initialize()`` does (``listener_init``)."""
        names = ("*", self.name)
        linking = running_pipeline("_link_components")
        if isinstance(getattr(component, "model", None), Model):
            for node in component.model.walk():
                if isinstance(node, ElmoListener) and node.upstream_name in names:
                    check_frozen_elmo_annotates(self.name, component.name)
                    self.add_listener(node, component.name)
                    if linking is not None:
                        node.check_pipeline = _PipelineCheck(linking)

    # -- prediction ------------------------------------------------------------------------
    @property
    def bilm(self) -> BiLm | None:
        """The biLM as the layers it computes record it (``ElmoLayers.bilm``; ``None`` before its weights are
        loaded), which its listeners check the layers they read against."""
        return bilm_of(self.model)

    @property
    def frozen(self) -> bool:
        return bool(self.model.attrs["frozen"])

    def predict(self, docs: Iterable[Doc]) -> list[Floats3d]:
        """The (L+1, n_tokens, 2P) layers of each doc."""
        return self._layers(list(docs), is_train=False)[0]

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """spaCy's ``TrainablePipe.pipe``, a ``batch_size`` that is no whole number >= 1 refused in one line:
        spaCy's batching makes no batch of 0 docs, so ``nlp.pipe(texts, batch_size=0)`` gave no docs, silently."""
        if not (is_number(batch_size, whole=True) and batch_size >= 1):
            raise ValueError(
                f"the elmo component {self.name!r}: batch_size (nlp.pipe's or nlp.evaluate's, or component_cfg="
                f"{{{self.name!r}: {{'batch_size': N}}}}) must be a whole number >= 1 of docs, got {described(batch_size)}"
            )
        yield from super().pipe(stream, batch_size=batch_size)

    @property
    def sets_token_vectors(self) -> bool:
        """Whether prediction sets ``doc.tensor`` and the vector hooks: the ``token_vectors``
        setting, or, when it is ``None``, whether the vocab has no static vectors."""
        setting = self.cfg.get("token_vectors")
        return self.vocab.vectors.size == 0 if setting is None else bool(setting)

    def set_annotations(self, docs: Iterable[Doc], layers: list[Floats3d]) -> None:
        """Give each doc its layers (``doc._.elmo``), recording the biLM that computed them (``ElmoLayers.bilm``,
        which listeners check), and, with ``token_vectors``, its token vectors. Its listeners are linked to it
        again first: a copy of the pipeline (``copy.deepcopy``, ``pickle``) restores their links to no component,
        and keeps the biLM of the copied one only. A fine-tuned biLM annotating in ``nlp.update`` (its
        ``annotates``) records none: its weights change at every step, and its digest, which reads them all, would
        be computed again at every step for the update's own copies of the docs, which it drops."""
        fine_tuning = not self.frozen and running_update() is not None
        token_vectors, listeners, bilm = self.sets_token_vectors, self.listeners, None if fine_tuning else self.bilm
        for listener in listeners:
            listener.upstream_bilms.link(self)
        if token_vectors:
            _check_no_listener_reads_tensor(self)
        for doc, doc_layers in zip(docs, layers):
            check_not_read_before(doc, self.name, listeners)
            doc._.set(EXTENSION, ElmoLayers.of(doc, doc_layers, self.name, bilm))
            if token_vectors:
                set_token_vectors(doc)

    def _layers(self, docs: list[Doc], is_train: bool) -> tuple[list[Floats3d], Callable]:
        """The biLM's output and backprop; a frozen biLM's layers go through the cache, except
        under ``spacy benchmark speed`` (``_in_speed_benchmark``)."""
        if get_elmo(self.model) is None:  # e.g. added to a trained pipeline: say how to load it alone
            raise ValueError(
                f"the elmo component {self.name!r} has no biLM weights yet: {load_weights_advice(self.name)}"
            )
        _warn_of_training_docs_read_whole(self, docs)  # in nlp.update: its update, or its annotation (frozen)
        if not (self.frozen and self.cache.enabled) or _in_speed_benchmark(self):
            return self.model(docs, is_train)
        keys = [doc_key(doc) for doc in docs]
        found = [self.cache.get(key) for key in keys]
        missing = [i for i, layers in enumerate(found) if layers is None]
        computed: dict[int, Floats3d] = {}
        if missing:
            computed = dict(zip(missing, self.model.predict([docs[i] for i in missing])))
            for i, layers in computed.items():
                self.cache.put(keys[i], self.model.ops.to_numpy(layers))
        # thinc's asarray3f stub takes no NumPy array, though converting one is what it is for
        return [
            computed[i] if cached is None else self.model.ops.asarray3f(cached)  # type: ignore[arg-type]
            for i, cached in enumerate(found)
        ], _ignore_gradient

    @contextmanager
    def memory_zone(self, mem: object = None) -> Iterator[object]:
        """Entered by spaCy's ``nlp.memory_zone(mem)`` (``mem``, its memory pool, is passed
        through): the layers cached for the docs processed inside the block are released when it
        ends, as spaCy releases the strings and lexemes added there. Those cached before stay, so
        the cache still serves later epochs of a training outside zones. Per thread and per
        asyncio task: the block releases the layers its own thread or task cached in it (through
        ``asyncio.to_thread`` too), not those others cache meanwhile (in zones of their own or
        outside any); spaCy's part of ``nlp.memory_zone()``, the vocab's strings and lexemes, is one
        for the pipeline, not per thread."""
        with self.cache.memory_zone():
            yield mem

    # -- training --------------------------------------------------------------------------
    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optimizer | None = None,
        losses: dict[str, float] | None = None,
    ) -> dict[str, float]:
        """Compute the batch's layers and hand them to the listeners: in ``nlp.update``, to those of
        the components it updates on the batch (those of the components it only has predict on it
        get each doc's layers; others nothing, so none holds a batch it is not called on), else to all.

        Frozen: the listeners' gradients are dropped (the loss stays 0). Fine-tuning: they are
        summed and the last listener's callback backpropagates them into the biLM (and steps
        ``sgd`` if given, or the step ``finish_update`` left to it); a step left by the batch
        before, whose backward pass never came, is taken first.
        ``losses[name]`` accumulates the squared norm of the gradients received.
        """
        losses = {} if losses is None else losses
        validate_examples(examples, "ElmoComponent.update")
        if self._step_after_backward is not None:
            self.model.finish_update(self._step_after_backward)
            self._step_after_backward = None
        uses = self._link_listeners_of_update()
        docs = [eg.predicted for eg in examples]
        layers, backprop_layers = self._layers(docs, is_train=True)
        losses.setdefault(self.name, 0.0)
        if self.frozen:
            accumulate_gradient = backprop = _ignore_gradient
        else:
            accumulate_gradient, backprop = self._gradient_callbacks(layers, backprop_layers, sgd, losses)
        batch_id = ElmoListener.get_batch_id(docs)
        handed = [
            (m, "update" if uses is None else uses.get(name))
            for name, found in self.listener_map.items()
            for m in found
        ]
        updated = [listener for listener, use in handed if use == "update"]
        self._backward_by = updated[-1] if updated and not self.frozen else None
        trained_with = TrainedWith(self.bilm) if self.frozen else TrainedWith(by=weakref.ref(self))
        for listener in updated:
            listener.attrs["trained_with"] = trained_with
        for listener, use in handed:
            if use == "update":
                listener.receive(batch_id, layers, backprop if listener is updated[-1] else accumulate_gradient, docs)
            else:  # its component is not updated on the batch: the layers of its prediction at most
                listener.receive(batch_id, layers, None, docs if use == "predict" else ())
        return losses

    def _link_listeners_of_update(self) -> dict[str, str] | None:
        """Link the listeners of the components after this one in the pipeline that ``nlp.update``
        (up the call stack) updates, as spaCy's ``_link_components`` does whenever a component is
        added, removed or renamed, but for the enabled components only: one disabled then
        (``spacy.load(..., disable=[...])`` or ``nlp.select_pipes``, then ``nlp.add_pipe``) is enabled
        again unlinked, and its listener would get no layers. They are linked in pipeline order,
        those of the components ``nlp.update`` updates last (after those of disabled components,
        which are kept, and of those in its ``exclude``): the last listener, which backpropagates a
        fine-tuned biLM's gradient (``update``), is then that of the last component updated.

        Returns what ``nlp.update`` does with each listening component on this batch: ``"update"``
        it; ``"predict"`` on it only (excluded, in its ``annotates``: ``spacy train``'s frozen
        annotating components); nothing (disabled, or excluded and not annotating), so the listener
        gets nothing of the batch. ``None`` outside ``nlp.update`` (a call of this ``update`` alone):
        any listening component may be updated next, so every listener gets the batch."""
        update = running_update()
        if update is None or self.name not in update.nlp.pipe_names or update.nlp.get_pipe(self.name) is not self:
            return None
        nlp = update.nlp
        later = nlp.pipeline[nlp.pipe_names.index(self.name) + 1 :]
        updated = {name for name, _ in later} - update.exclude
        predicting = {name for name, _ in later} & update.exclude & update.annotates
        self.listener_map = {name: found for name, found in self.listener_map.items() if name not in updated}
        for _, component in later:
            self.find_listeners(component)
        self.listener_map = dict(sorted(self.listener_map.items(), key=lambda item: item[0] in updated))
        return {name: "update" for name in updated} | {name: "predict" for name in predicting}

    def _gradient_callbacks(
        self, layers: list[Floats3d], backprop_layers: Callable, sgd: Optimizer | None, losses: dict[str, float]
    ) -> tuple[Callable, Callable]:
        """Callbacks for the listeners of a fine-tuned biLM: all but the last accumulate their
        gradient, the last one also backpropagates the sum (spaCy's ``Tok2Vec`` protocol)."""
        d_layers = [self.model.ops.alloc3f(*x.shape) for x in layers]

        def accumulate_gradient(one_d_layers: list[Floats3d]) -> list[Doc]:
            for total, one in zip(d_layers, one_d_layers):
                total += one
                losses[self.name] += float((one**2).sum())  # type: ignore[call-overload]  # thinc's stub: keepdims has no default
            return []

        def backprop(one_d_layers: list[Floats3d]) -> list[Doc]:
            accumulate_gradient(one_d_layers)
            d_docs = backprop_layers(d_layers)
            step = sgd if sgd not in (None, False) else self._step_after_backward
            self._backward_by = self._step_after_backward = None
            if step is not None:
                self.model.finish_update(step)
            return d_docs

        return accumulate_gradient, backprop

    def rehearse(
        self,
        examples: Iterable[Example],
        *,
        sgd: Optimizer | None = None,
        losses: dict[str, float] | None = None,
        **config: object,
    ) -> dict[str, float]:
        """Nothing to rehearse without listeners (the component has no loss of its own); refused
        with them: ``nlp.rehearse`` runs the components in random order, so a listener cannot count
        on this component handing it the batch's layers first (``update`` does, in ``nlp.update``)."""
        if self.listening_components:
            raise ValueError(
                f"the elmo component {self.name!r} cannot rehearse with its listeners "
                f"({', '.join(map(repr, self.listening_components))}): {NO_REHEARSAL}"
            )
        return {} if losses is None else losses

    def finish_update(self, sgd: Optimizer) -> None:
        """Step the biLM's weights, unless it is frozen (then nothing changes). While the batch of
        the last ``update`` waits for its backward pass (a listener holds its callback:
        ``nlp.update`` calls this right after ``update``, before the listening components), the
        step is left to that pass (``update``'s callback): a step now would change the weights
        under the batch's autograd graph, in place, and hold none of its gradient; so each
        ``nlp.update`` steps by its own batch's gradient, at the weights its layers came from. A
        batch whose backward pass never comes (its last listening component learnt nothing from
        it) leaves the step to the next ``update``, before its forward pass."""
        if self.frozen:
            return
        if self._backward_by is not None and self._backward_by.holds_batch:
            self._step_after_backward = sgd
        else:
            self.model.finish_update(sgd)

    def get_loss(self, examples: Iterable[Example], scores: object) -> None:
        """The component has no loss of its own: its gradients come from the listeners."""
        return None

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Language | None = None,
        loader: Callable[[], ElmoModel] | str | None = None,
    ) -> None:
        """Load the biLM with ``loader`` (``[initialize.components.elmo.loader]``, e.g.
        ``spacy-elmo.ElmoLoader.v1``), or, when that names no model, with the model's own loader
        (``[components.elmo.model.loader]``), or the shipped model when neither names one and
        the model has no weights; then give every listener its widths. A biLM of other widths
        than a trained listener's is refused before anything changes (``_load``).

        Every listener in ``nlp`` must have an elmo component of its ``upstream`` before it.
        A model named in both places, or one that cannot be loaded or run (a word-embedding baseline,
        from any loader), raises a ``ConfigValidationError`` naming the setting, which ``spacy train`` prints as one error
        line without a traceback.
        """
        if isinstance(loader, str):  # a biLM's name or folder, which the type lets through for this one line
            setting = ["initialize", "components", self.name, "loader"]
            title = f"Invalid settings of [initialize.components.{self.name}]"
            raise config_error(title, setting, loader_name_advice(loader))
        if nlp is not None:
            _check_upstreams(nlp)
        if not self.listener_map and training_settings() is not None:
            _warn_no_listeners(self.name)
        loader, setting = self._choose_loader(loader)
        loader = loader or missing_weights_loader(self.model)
        if loader is None:
            return
        title = f"Cannot load the ELMo biLM of component {self.name!r}"
        elmo = loaded_at_setting(loader, self._where, setting, title)
        self._load(elmo)
        _warn_other_language(self.name, elmo, self.vocab.lang)

    def _choose_loader(
        self, loader: Callable[[], ElmoModel] | None
    ) -> tuple[Callable[[], ElmoModel] | None, list[str]]:
        """The loader to use and the config setting it comes from: ``[initialize]``'s ``loader``,
        unless it names no model (``None``, or ``name_or_path = null``) and the model's does."""
        init_setting = ["initialize", "components", self.name, "loader"]
        model_setting = ["components", self.name, "model", "loader"]
        own = model_loader(self.model)
        if names_a_model(loader) and names_a_model(own):
            raise config_error(
                f"Two ELMo models given for component {self.name!r}",
                init_setting,
                f"an ELMo model is named both in [initialize.components.{self.name}.loader] and in "
                f"[components.{self.name}.model.loader]: keep one and set the other's name_or_path to null "
                "(for the first: leave out --paths.elmo)",
            )
        if not names_a_model(loader) and names_a_model(own):
            return own, model_setting
        return loader, init_setting

    # -- serialisation ---------------------------------------------------------------------
    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = tuple()) -> None:
        """Write ``path/bilm/config.json`` and ``model.safetensors`` (loadable by ``ElmoModel``).
        Before its weights are loaded (``nlp.initialize()``) the component writes the note
        ``path/no-bilm.txt`` instead, so that a pipeline saves whole before initialisation, as
        spaCy's own components do; loaded back, it has no weights until ``nlp.initialize()``.
        Either way the biLM of an earlier save to ``path`` goes, so none is left stale: the weights are written
        aside and swapped in for it whole (``build_aside``; a save stopped part-way, by Ctrl-C or an error, leaves
        the earlier biLM as it was), the note removes it first (``_remove_earlier_bilm``); one that is a
        symbolic link (or holds links) is replaced, never written through
        (the folder it links to, such as the model folder it came from, is left as it is); one that holds
        files elmo did not write is refused (``_check_earlier_bilm``).
        A folder it cannot make files in is refused first, as one ``OSError`` naming it
        (``check_writable``), and so is a disk without room for the weights (``ensure_free_space``:
        safetensors fails part-way on a full disk, with an error that is no ``OSError`` and names no file)."""
        path = Path(path)
        note, folder = path / NO_BILM_FILE, path / BILM_FOLDER
        elmo = get_elmo(self.model)
        _check_earlier_bilm(folder, self.name)
        # where no file can be made but existing ones rewritten (spaCy's own files are), the weights'
        # temporary file failed with a SafetensorError naming that file, after the config was rewritten
        check_writable(path, path)
        if folder.is_dir() and not folder.is_symlink():  # its files are removed
            check_writable(folder, path)
        if elmo is None:
            path.mkdir(parents=True, exist_ok=True)
            note.write_text(
                f"The elmo component {self.name!r} was saved before its biLM weights were loaded: nlp.initialize() "
                f"loads them ([initialize.components.{self.name}] in config.cfg).\n"
            )
            _remove_earlier_bilm(folder)  # after the note: a save stopped between the two loads as one without weights
            return
        weight_bytes = sum(t.numel() * t.element_size() for t in elmo.state_dict().values())
        what = f"the biLM weights of the elmo component {self.name!r} in {folder}"
        ensure_free_space(path, weight_bytes, what, then="save the pipeline again")
        if folder.is_symlink() or (
            folder.exists() and (output_kind(folder) != "model" or others_files(folder, "model"))
        ):
            _remove_earlier_bilm(folder)  # a link, one holding links, or what an older version's stopped save left
        with build_aside(folder, overwrite=True) as staging:  # an earlier biLM stays until the new one is whole
            elmo.save_pretrained(staging, safe_serialization=True)
        note.unlink(missing_ok=True)  # of an earlier save without weights to the same folder

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = tuple()) -> "ElmoComponent":
        """Load the biLM that ``to_disk`` wrote; a component saved without weights (its
        ``no-bilm.txt``) loads none, and the component keeps what it has."""
        if (ensure_path(path) / NO_BILM_FILE).is_file():
            return self
        folder = ensure_path(path) / BILM_FOLDER
        if not (folder / "model.safetensors").is_file():
            raise ValueError(f"{folder} holds no model.safetensors: not a saved elmo component")
        self._load(ElmoModel.from_pretrained(folder))
        return self

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        """The Thinc model's bytes: the biLM as config JSON + safetensors inside msgpack."""
        return self.model.to_bytes()

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "ElmoComponent":
        """Load the biLM that ``to_bytes`` wrote; bytes of a component without weights load
        none, and the component keeps what it has (as ``from_disk`` of one saved so). A word-embedding
        baseline is refused before anything changes, as ``_load`` refuses it."""
        config = serialized_config(bytes_data)
        if config is None:
            return self
        check_config_reads_char_ids(config, config.name_or_path or "the biLM", f"the elmo component {self.name!r}")
        self._check_listener_widths(config_widths(config))
        self._keep_trained_with()
        self._check_listeners_trained_with(lambda: serialized_bilm(bytes_data))
        self.model.from_bytes(bytes_data)
        self._weights_changed()
        return self

    def _load(self, elmo: ElmoModel) -> None:
        """Load ``elmo``'s weights (from ``initialize``'s loader or ``from_disk``'s folder), unless it is a
        word-embedding baseline, which reads word ids, not char ids (``check_reads_char_ids``), or a listener
        was trained on other widths: then nothing changes."""
        self._check_listener_widths(runnable_widths(elmo, self._where))
        self._keep_trained_with()
        self._check_listeners_trained_with(lambda: bilm_record(elmo))
        load_weights(self.model, elmo)
        self._weights_changed()

    @property
    def _where(self) -> str:
        """The component as a refusal of a biLM it cannot run names it (``runnable_widths``)."""
        return f"the elmo component {self.name!r}"

    def _weights_changed(self) -> None:
        """After the biLM's weights are (re)loaded: drop the layers cached from the old ones and
        give every listener the new widths."""
        self.cache.clear()
        for component_name, listeners in self.listener_map.items():
            for listener in listeners:
                self._set_widths(listener, component_name)

    def _check_listener_widths(self, new_widths: Mapping[str, int | None]) -> None:
        """Refuse, before anything changes, a biLM of other widths than a listener was trained on."""
        for component_name, listeners in self.listener_map.items():
            for listener in listeners:
                self._check_widths(listener, component_name, new_widths)

    def _set_widths(self, listener: ElmoListener, component_name: str) -> None:
        """Give ``listener`` the biLM's widths ``nL`` (L+1) and ``nO`` (2P) (``_check_widths``)."""
        current = {dim: self.model.get_dim(dim) for dim in ("nL", "nO")}
        self._check_widths(listener, component_name, current)
        self._check_trained_with(listener, component_name)
        for dim, value in current.items():
            listener.set_dim(dim, value)

    def _check_widths(self, listener: ElmoListener, component_name: str, new: Mapping[str, int | None]) -> None:
        """Refuse widths ``new`` other than those ``listener`` already has, which the listening
        component was trained on (its weights fit no other width)."""
        trained = {dim: listener.maybe_get_dim(dim) for dim in ("nL", "nO")}
        if trained != {"nL": None, "nO": None} and trained != dict(new):
            _refuse_listening_component(
                component_name,
                f"component {component_name!r} was trained on ELMo layers of {describe_widths(trained, new)}, but "
                f"the elmo component {self.name!r} now gives {describe_widths(new, trained)}: give {self.name!r} the "
                f"biLM {component_name!r} was trained with, or train {component_name!r} again",
            )

    def _check_listeners_trained_with(self, incoming: Callable[[], BiLm | None]) -> None:
        """Refuse, before anything changes, to load a biLM (``incoming``, read once, and only where a listener needs
        it checked) of other weights than a listener was trained with (``_check_trained_with``)."""
        incoming = functools.cache(incoming)
        for component_name, listeners in self.listener_map.items():
            for listener in listeners:
                self._check_trained_with(listener, component_name, incoming)

    def _check_trained_with(
        self, listener: ElmoListener, component_name: str, incoming: Callable[[], BiLm | None] | None = None
    ) -> None:
        """Refuse to feed ``listener`` the layers of this component's biLM where its component was trained with
        another biLM of the same widths (``listener.trained_with``, saved with it; ``None``, as by older versions,
        passes): its weights would read that biLM's features as another's, silently (e.g. a trained listening
        component sourced into a pipeline whose elmo component loads another biLM); ``incoming``: the biLM to feed
        it, called only where it is checked (``None``: this component's). Checked as spaCy links the pipeline and as
        this component loads weights (before it loads them: ``_check_listeners_trained_with``), not as
        ``nlp.update`` links it again (``update``: a biLM fine-tuned since is the one its listeners are trained
        with). Where ``nlp.initialize()`` (up the call stack) initialises the listening component again, it is
        trained afresh: what it was trained with is forgotten."""
        stamp = listener.attrs["trained_with"]
        if stamp.by is not None and stamp.by() is self:
            return
        trained = listener.trained_with
        if trained is None or running_update() is not None:
            return
        initializing = running_pipeline("initialize")
        if initializing is not None and component_name in initializing.pipe_names:
            listener.attrs["trained_with"] = TrainedWith()
            return
        bilm = self.bilm if incoming is None else incoming()
        if bilm is not None and bilm.digest != trained.digest:
            _refuse_listening_component(
                component_name,
                f"component {component_name!r} was trained with the biLM {trained}, but the elmo component "
                f"{self.name!r} runs the biLM {bilm}, of the same widths, whose layers it would read as those of its "
                f"own: give {self.name!r} the biLM {component_name!r} was trained with (source {self.name!r} from the "
                f"pipeline {component_name!r} comes from), or train {component_name!r} again",
            )

    def _keep_trained_with(self) -> None:
        """Before other weights are loaded: the listeners whose record is this component (this fine-tuned biLM
        trained them, ``update``, or it linked them as they were initialised) keep its biLM as it is now, what they
        were trained with."""
        bilm = None
        for listener in self.listeners:
            stamp = listener.attrs["trained_with"]
            if stamp.by is not None and stamp.by() is self:
                bilm = bilm or self.bilm
                listener.attrs["trained_with"] = TrainedWith(bilm)


def refuse_model_name(name: str, model: str) -> NoReturn:
    """Refuse the ``model`` setting of the elmo component ``name`` given a biLM's name or folder (a str, which the
    factory's type lets through for this) in place of the ``spacy-elmo.ElmoBiLm`` block: say where a name goes (was:
    spaCy's "is not Model" check, followed by the component's settings)."""
    refuse_setting(
        f"the {name} component",
        "model",
        f"must be a spacy-elmo.ElmoBiLm.v3 block, got the name or folder {model!r}: give a biLM's name or folder as "
        f"the name_or_path of the block's loader ([components.{name}.model.loader]; in Python "
        f'config={{"model": {{"loader": {{"@misc": "{LOADER_NAME}", "name_or_path": ...}}}}}}) '
        f"or of [initialize.components.{name}.loader] (spacy train: --paths.elmo)",
    )


def _refuse_listening_component(name: str, message: str) -> NoReturn:
    """Refuse the listening component ``name`` with ``message``: a ``ValueError``, which in ``spacy train`` (its
    ``init_nlp`` up the call stack) is a ``ConfigValidationError`` at ``[components.NAME]``, which it prints as a
    config error, without a traceback (a sourced component trained with another biLM than the one given)."""
    if training_settings() is None:
        raise ValueError(message)
    raise config_error(f"The ELMo layers do not fit component {name!r}", ["components", name], message)


def _take_back_added(name: str) -> None:
    """Take the component ``name`` out of the pipeline that ``nlp.add_pipe`` (up the call stack) is adding it to
    (``nlp.remove_pipe``, which links the pipeline again without it), so that the call refused as spaCy links the
    pipeline leaves it as it was (was: the refused component stayed in it, linked to no elmo component)."""
    adding = pipe_being_added()
    if adding is not None and adding[1] == name and name in adding[0].component_names:
        adding[0].remove_pipe(name)


def _check_before_training(component: str) -> None:
    """In ``spacy train`` (``init_nlp`` up the call stack, once it has resolved ``[training]``), as it
    links the pipeline before initialising it, refuse a model named for a sourced elmo component
    ``component`` (``check_sourced_elmo_loads_nothing``) and a listener that no elmo component before
    its own can feed (``_check_upstreams``): ``nlp.initialize()`` refuses it too, but spaCy initialises
    no sourced component, so a sourced listening component whose elmo component the config renames (or
    leaves out) failed at step 0 of the training, in a traceback."""
    nlp = training_pipeline()
    if nlp is not None:
        check_sourced_elmo_loads_nothing(component)
        _check_upstreams(nlp)


def _check_earlier_bilm(folder: Path, component: str) -> None:
    """Refuse, before ``to_disk`` writes anything, an earlier biLM folder ``folder`` that holds files
    elmo did not write (``others_files``: a model folder's files, and links, are elmo's to replace), or
    a file where the folder goes, naming them: replacing it would delete them."""
    if folder.is_symlink() or not folder.exists():
        return
    if not folder.is_dir():
        raise FileExistsError(
            f"{folder} is a file, where the elmo component {component!r} saves its biLM folder; move it, or save "
            "the pipeline elsewhere"
        )
    theirs = [name for name in others_files(folder, "model") if not (folder / name).is_symlink()]
    if theirs:
        raise FileExistsError(
            f"{folder} holds files that elmo did not write ({some_of(theirs, 5)}), which saving the elmo component {component!r} "
            "would delete with its earlier biLM; move them out of it, or save the pipeline elsewhere"
        )


def _remove_earlier_bilm(folder: Path) -> None:
    """Remove the biLM folder ``folder`` of an earlier save (checked by ``_check_earlier_bilm``): a
    symbolic link is removed, never followed, so the folder it links to is left as it is; a folder is
    removed with its files (links among them are removed, not followed)."""
    if folder.is_symlink():
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)


def _check_no_listener_reads_tensor(component: ElmoComponent) -> None:
    """Refuse to set ``doc.tensor`` (``token_vectors``) from the elmo component ``component`` where a
    component that runs after it listens to a spaCy ``tok2vec`` component that does not run before it
    (``_refuse_tensor_readers``), once per set of running components: a batch run by the components (and
    their models) that the batch before passed with is not checked again (``_CheckedComponents``); one
    disabled, enabled, added, removed or moved since is."""
    running = running_components(component)
    if running is None or component._tensor_readers_checked.holds(running):
        return
    _refuse_tensor_readers(component, running)
    component._tensor_readers_checked = _CheckedComponents(running)


def _refuse_tensor_readers(component: ElmoComponent, running: list[tuple[Any, object]]) -> None:
    """Refuse the components ``running`` (``running_components``) where one that runs after the elmo component
    ``component`` listens to a spaCy ``tok2vec`` component that does not run before it (disabled, or excluded, or
    after it in the pipeline): spaCy's ``Tok2VecListener`` reads ``doc.tensor`` where its ``tok2vec`` did not run,
    so it read ELMo's token vectors in place of the features it was trained on, silently (a blis shape error where
    the widths differ)."""
    start = next(i for i, (_, proc) in enumerate(running) if proc is component)
    for position, (name, proc) in enumerate(running[start + 1 :], start + 1):
        model = getattr(proc, "model", None)
        if not isinstance(model, Model):
            continue
        for node in model.walk():
            if not isinstance(node, Tok2VecListener):
                continue
            upstreams = [
                i for i, (n, p) in enumerate(running) if isinstance(p, Tok2Vec) and node.upstream_name in ("*", n)
            ]
            if any(i < position for i in upstreams):
                continue
            upstream = (
                "a tok2vec component" if node.upstream_name == "*" else f"the tok2vec component {node.upstream_name!r}"
            )
            why, fix = (
                ("runs after it", f"move {upstream} before {name!r} in the pipeline")
                if upstreams
                else (
                    "does not run here (disabled or excluded)",
                    f"run {upstream} too (leave it out of disable= and exclude=), or leave {name!r} out as well",
                )
            )
            raise ValueError(
                f"the component {name!r} listens to {upstream}, which {why}, so its listener would read the ELMo token "
                f"vectors the elmo component {component.name!r} puts in doc.tensor in place of the features {name!r} "
                f"was trained on: {fix}"
            )


class _CheckedComponents:
    """The running components (name, component, model) that ``_refuse_tensor_readers`` last passed for an elmo
    component, held (so that no other object takes their ids while they are compared) and compared by identity.
    Pickled (a worker of ``nlp.pipe``, ``copy.deepcopy``) as none passed."""

    def __init__(self, running: list[tuple[Any, object]] | None = None) -> None:
        self._running = [(name, proc, getattr(proc, "model", None)) for name, proc in running or []]

    def holds(self, running: list[tuple[Any, object]]) -> bool:
        """Whether ``running`` are the components (and models) passed."""
        return len(running) == len(self._running) and all(
            name == held and proc is held_proc and getattr(proc, "model", None) is model
            for (name, proc), (held, held_proc, model) in zip(running, self._running)
        )

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (_CheckedComponents, ())


def _ignore_gradient(d_layers: list[Floats3d]) -> list[Doc]:
    return []


def _in_speed_benchmark(component: ElmoComponent) -> bool:
    """Whether ``spacy benchmark speed`` runs this prediction (its ``annotate``, which times the
    pipeline in the warm-up and the timed batches, is up the call stack). The benchmark repeats
    its docs, so the activation cache would serve them from the second time on and the command
    would time cache reads, not the biLM: the component then neither reads nor stores cached
    layers, and says so once."""
    if not in_speed_benchmark():
        return False
    note_once(
        component,
        f"spacy benchmark speed: the elmo component {component.name!r} reads no cached layers, so that the biLM is "
        "timed (the benchmark repeats its docs, which the activation cache would serve)",
    )
    return True


#: What a component that sets sentence boundaries assigns (its factory's ``assigns``: sentencizer, senter, parser).
SENTENCE_ASSIGNS = frozenset({"token.is_sent_start", "doc.sents"})


def _warn_of_training_docs_read_whole(component: ElmoComponent, docs: list[Doc]) -> None:
    """Warn, once per component, when ``nlp.update`` (up the call stack) has ``component`` read docs without
    sentence boundaries while a component before it that sets them in prediction (``SENTENCE_ASSIGNS``) is not
    in the update's ``annotates``, so the update does not run it: the biLM then reads the training docs whole,
    and those it predicts on sentence by sentence (``doc_segments``), so that a doc of several sentences gets
    other layers in training than in prediction, silently. spaCy runs a component before another in training
    only where ``[training] annotating_components`` lists it."""
    update = running_update()
    if update is None or component.name not in update.nlp.pipe_names:
        return
    if all(len(doc) < 2 or doc.has_annotation("SENT_START") for doc in docs):
        return
    nlp, annotating = update.nlp, update.annotates
    before = nlp.pipe_names[: nlp.pipe_names.index(component.name)]
    setters = [
        name for name in before if name not in annotating and SENTENCE_ASSIGNS & set(nlp.get_pipe_meta(name).assigns)
    ]
    if setters and first_time(component, "training docs read whole"):
        names, one = ", ".join(map(repr, setters)), len(setters) == 1
        warnings.warn(
            f"the elmo component {component.name!r} reads these training docs whole: nlp.update does not run {names}, "
            f"which {'comes' if one else 'come'} before it and {'splits' if one else 'split'} docs into sentences in "
            "prediction, where the biLM reads each sentence alone, so a doc of several sentences gets other ELMo "
            "layers in training than in prediction: add "
            f"{names} to [training] annotating_components (in a loop of your own: nlp.update(..., "
            f"annotates=[{names}])) (said once for this component)",
            stacklevel=3,
        )


def _warn_no_listeners(component: str) -> None:
    """Warn, as ``spacy train`` initialises the pipeline, that no component listens to the elmo component
    ``component``, so none trains on its layers: what ``spacy init config --pipeline elmo,ner`` writes (its
    components listen to a tok2vec of their own), where the biLM then runs on every batch for nothing."""
    warnings.warn(
        f"no component listens to the elmo component {component!r}, so none of those trained uses ELMo (spacy init "
        "config adds elmo to a pipeline without a listener): give a component's model the tok2vec "
        f"spacy-elmo.ElmoTok2Vec.v1 with upstream {component!r}, as spacy_elmo/configs/ner.cfg and textcat.cfg do, "
        f"or remove {component!r} from [nlp] pipeline",
        stacklevel=3,
    )


def _warn_other_language(component: str, elmo: ElmoModel, language: str) -> None:
    """Warn when the biLM ``elmo`` that the elmo component ``component`` loaded at initialisation
    learnt words split by spaCy's rules of another language than the pipeline's (``language``): its
    ``pre_tokenizer`` records them (``"spacy:LANG"``); one of whitespace-split text names none."""
    rule = elmo.config.pre_tokenizer or ""
    learnt = rule[len(SPACY_PREFIX) :] if rule.startswith(SPACY_PREFIX) else language
    if learnt != language:
        warnings.warn(
            f"the elmo component {component!r} loaded a biLM whose training text was split by spaCy's {learnt!r} "
            f"rules (its pre_tokenizer {rule!r}), but this pipeline's tokenizer splits by the {language!r} rules, "
            "so its tokens are not the words the biLM learnt and their vectors are poorer: use a pipeline of "
            f'language {learnt!r} (spacy.blank("{learnt}"), [nlp] lang = "{learnt}"), or a biLM trained on text '
            f"split by the {language!r} rules",
            stacklevel=3,
        )


def let_listeners_check(nlp: Language) -> None:
    """Give the listeners already in ``nlp`` (their components come before the elmo component
    being made, unless it is inserted before them) a ``_PipelineCheck`` of ``nlp``: spaCy
    initialises the listening component first, so its listener, left unconnected, is the one to
    say that the elmo component comes after it."""
    check = _PipelineCheck(nlp)
    for _, component in nlp.components:
        for listener in _listeners(component):
            listener.check_pipeline = check


class _PipelineCheck:
    """``_check_upstreams`` of a pipeline, held weakly, for the sample docs of its own
    initialisation (docs of its vocab). Pickled without the pipeline, as a check of nothing."""

    def __init__(self, nlp: Language | None) -> None:
        self._pipeline = None if nlp is None else weakref.ref(nlp)

    def __call__(self, docs: list[Doc]) -> None:
        nlp = None if self._pipeline is None else self._pipeline()
        if nlp is not None and docs and docs[0].vocab is nlp.vocab:
            _check_upstreams(nlp)

    def __reduce__(self) -> tuple[type, tuple[None]]:
        return (_PipelineCheck, (None,))


def _listeners(component: object) -> list[ElmoListener]:
    """The ``ElmoListener`` layers in ``component``'s model."""
    model = getattr(component, "model", None)
    return [node for node in model.walk() if isinstance(node, ElmoListener)] if isinstance(model, Model) else []


def _check_upstreams(nlp: Language) -> None:
    """Refuse a listener in ``nlp`` (disabled components included) that no elmo component before
    its own can feed: a ``ConfigValidationError`` at its component naming the elmo components
    there are, or the one to move before it."""
    names = nlp.component_names
    elmo_names = [name for name in names if isinstance(nlp.get_pipe(name), ElmoComponent)]
    for position, name in enumerate(names):
        for node in _listeners(nlp.get_pipe(name)):
            wanted = elmo_names if node.upstream_name == "*" else [n for n in elmo_names if n == node.upstream_name]
            if any(names.index(upstream) < position for upstream in wanted):
                continue
            if wanted:
                upstream = wanted[0]
                message = (
                    f"the elmo component {upstream!r} it listens to comes after it: move {upstream!r} before "
                    f"{name!r}: add it with {add_elmo_call(upstream, name)}, or list it before {name!r} in [nlp] "
                    "pipeline"
                )
            elif not elmo_names and (source := sourced_from(name)) is not None:
                elmo = (node.connected_to or "elmo") if node.upstream_name == "*" else node.upstream_name
                message = (
                    f"its ELMo listener needs an elmo component before it, and the pipeline has none: spaCy sources "
                    f"{name!r} without the elmo component it was trained with: source that too, listing {elmo!r} "
                    f"before {name!r} in [nlp] pipeline, with [components.{elmo}] source = {source!r}"
                )
            elif not elmo_names:
                message = (
                    f"the pipeline has no elmo component: add one before {name!r} with "
                    f"{add_elmo_call(node.upstream_name, name)}, or list one before it in [nlp] pipeline"
                )
            else:
                message = (
                    f"its ELMo listener's upstream {node.upstream_name!r} is no elmo component; the pipeline's are "
                    f'{", ".join(map(repr, elmo_names))}: set upstream to one of them (or "*": any)'
                )
            raise config_error(f"Component {name!r} gets no ELMo layers", ["components", name], message)


ElmoListener.check_upstreams = _check_upstreams
