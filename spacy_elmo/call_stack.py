"""What a running spaCy function holds that it hands to no component: its local variables, read
from its frame up the call stack. The home of that one technique (nothing else in the package reads a
frame), for the few settings spaCy's commands and methods keep to themselves (``init_nlp``'s
``[training]`` block, ``debug_model``'s ``nlp``, the pipeline and settings of ``nlp.update``, the
pipeline that links its components, the component that ``create_pipe`` makes) and for whether one
of them runs (``spacy benchmark speed``'s ``annotate``, ``spacy pretrain``'s ``create_pretraining_model``); and ``note_once``, the
note that says how a component or listener works while one of them runs, once (``first_time``, the
one home of saying a thing once, which the listener's warning uses too)."""

import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from spacy.language import Language
from wasabi import msg

from hf_elmo.elmo_cache import fork_safe_lock


def running_locals(module: str, function: str) -> dict[str, Any] | None:
    """The local variables of the innermost call of ``module.function`` (a spaCy function, e.g.
    ``"spacy.training.initialize"``, ``"init_nlp"``, or a method, ``"Language.update"``) that is
    running now, up the call stack of the caller. ``None``: it is not running, or this spaCy has no
    such function (its module is not imported, or the function was renamed or removed), so a change
    in spaCy turns a check off rather than failing every prediction."""
    return next((found for _, found in running_calls(module, function)), None)


def running_calls(module: str, *functions: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each running call of the functions ``functions`` of ``module`` (as ``running_locals`` names
    them) up the call stack of the caller, innermost first, as the function's name and the call's
    local variables; one walk of the stack for all of them."""
    codes = {code: function for function in functions if (code := _code_of(module, function)) is not None}
    frame: FrameType | None = sys._getframe(1) if codes else None
    while frame is not None:
        if frame.f_code in codes:
            yield codes[frame.f_code], frame.f_locals
        frame = frame.f_back


def running_components(component: object) -> list[tuple[Any, object]] | None:
    """The components that the spaCy call up the call stack that runs ``component`` runs, in order: the
    ``pipes`` of ``nlp.pipe`` or of its worker process (``_apply_pipes``), which leave out the disabled
    ones, or those of ``nlp(text)`` (``Language.__call__``, less its ``disable``): the innermost such
    call whose components hold ``component`` (a component of another pipeline may run this one's).
    ``None``: none does (a component called alone). It reads spaCy 3.0 to 3.8's locals there (``pipes``,
    each a ``functools.partial(_pipe, proc=..., name=...)``; ``self`` and ``disable``): a spaCy that
    renames those functions or builds them otherwise gives ``None`` too, which turns the check that
    reads it off, not fails."""
    for function, found in running_calls("spacy.language", "_apply_pipes", "Language.pipe", "Language.__call__"):
        nlp, pipes = found.get("self"), found.get("pipes")
        if isinstance(nlp, Language) and function == "Language.__call__":
            disable = found.get("disable") or ()
            running: list[tuple[Any, object]] = [(name, proc) for name, proc in nlp.pipeline if name not in disable]
        elif pipes is not None:
            settings = [getattr(p, "keywords", {}) for p in pipes]  # functools.partial(_pipe, proc=..., name=...)
            running = [(kwargs.get("name"), kwargs.get("proc")) for kwargs in settings]
        else:
            continue
        if any(proc is component for _, proc in running):
            return running
    return None


def replace_listeners_locals(direct: bool = True) -> dict[str, Any] | None:
    """The local variables of spaCy's ``Language.replace_listeners`` where it is the direct caller of
    the caller (``direct=False``: where it runs up the call stack, e.g. copying a listener), ``None``
    elsewhere. It calls an elmo component's ``listener_map`` and the listener's ``replace_listener_cfg``
    hook itself, and hands them none of what the checks of its paths (and the link of a copied listener)
    read from these: in spaCy 3.1 to 3.8, ``self`` (the pipeline), ``pipe_name``, ``pipe_cfg``,
    ``listeners`` (the paths), ``listener_path`` (the one replaced now), ``tok2vec_name`` and
    ``tok2vec_model``. A spaCy that renames the method turns those checks off (``None``), as one that
    renames a local turns off the check that reads it, not fails."""
    if not direct:
        return running_locals("spacy.language", "Language.replace_listeners")
    code = _code_of("spacy.language", "Language.replace_listeners")
    frame = sys._getframe(2)
    return frame.f_locals if code is not None and frame.f_code is code else None


def running_pipeline(method: str) -> Language | None:
    """The pipeline (``self``) whose ``Language`` method ``method`` runs up the call stack (its innermost call),
    ``None`` elsewhere: a spaCy that renames the method turns off what reads it, not fails. Read for
    ``"_link_components"`` (spaCy 3.0 to 3.8 run it on every ``add_pipe``, ``remove_pipe``, ``rename_pipe`` and in
    ``initialize``, and hand the elmo component the listeners it finds, not the pipeline), ``"resume_training"``
    (``spacy train`` runs it on the sourced components it trains, and copies their models), ``"initialize"`` and
    ``"update"`` (whose settings ``running_update`` reads too)."""
    nlp = (running_locals("spacy.language", f"Language.{method}") or {}).get("self")
    return nlp if isinstance(nlp, Language) else None


@dataclass(frozen=True)
class RunningUpdate:
    """The ``nlp.update`` call up the call stack: its pipeline, and the components it ``exclude``s and has
    ``annotates`` (predict on the batch after their update, or instead of it where excluded)."""

    nlp: Language
    exclude: frozenset[str]
    annotates: frozenset[str]


def running_update() -> RunningUpdate | None:
    """The innermost ``nlp.update`` call up the call stack (``Language.update``, its locals ``self``, ``exclude``
    and ``annotates`` in spaCy 3.0 to 3.8), ``None`` elsewhere (as ``running_pipeline("update")``)."""
    found = running_locals("spacy.language", "Language.update") or {}
    nlp = found.get("self")
    if not isinstance(nlp, Language):
        return None
    return RunningUpdate(nlp, frozenset(found.get("exclude") or ()), frozenset(found.get("annotates") or ()))


def pipe_being_added() -> tuple[Language, str] | None:
    """The pipeline and the name of the component that ``nlp.add_pipe`` (``Language.add_pipe``, innermost) is adding
    up the call stack, ``None`` elsewhere."""
    found = running_locals("spacy.language", "Language.add_pipe") or {}
    nlp, name = found.get("self"), found.get("name")
    return (nlp, name) if isinstance(nlp, Language) and isinstance(name, str) else None


def component_being_made() -> tuple[str, dict[str, Any]] | None:
    """The name and the settings of the component that ``nlp.create_pipe`` (``Language.create_pipe``, innermost) makes
    up the call stack (as ``nlp.add_pipe``, ``spacy.load`` and ``spacy train`` make each one), while it calls the
    registered functions of those settings; ``None`` elsewhere. spaCy 3.0 to 3.8 name its locals ``name`` and
    ``config`` (the component's block of the config, its defaults merged in); a spaCy that renames them turns off what
    reads it (``None``), not fails."""
    found = running_locals("spacy.language", "Language.create_pipe") or {}
    name, config = found.get("name"), found.get("config")
    return (name, config) if isinstance(name, str) and isinstance(config, dict) else None


def training_init() -> dict[str, Any]:
    """The local variables of the ``init_nlp`` call up the call stack (``spacy train``, which prints the
    errors it raises as config errors), once it has resolved ``[training]`` (``T``); ``{}``: no such call,
    or not yet. spaCy 3.0 to 3.8 (``spacy.training.initialize``) name its locals ``T``, ``nlp``, ``sourced``
    (``get_sourced_components``) and ``config`` (the interpolated config); a spaCy that renames the function
    or ``T`` turns the checks that read it off (``{}``), not fails."""
    init = running_locals("spacy.training.initialize", "init_nlp") or {}
    return init if "T" in init else {}


def debugged_pipeline() -> Language | None:
    """The pipeline (its local ``nlp``) of the ``spacy debug model`` run up the call stack (``debug_model``),
    ``None`` elsewhere."""
    nlp = (running_locals("spacy.cli.debug_model", "debug_model") or {}).get("nlp")
    return nlp if isinstance(nlp, Language) else None


def in_speed_benchmark() -> bool:
    """Whether ``spacy benchmark speed`` runs up the call stack (its ``annotate``, which times the pipeline in
    the warm-up and the timed batches)."""
    return running_locals("spacy.cli.benchmark_speed", "annotate") is not None


def pretraining() -> bool:
    """Whether ``spacy pretrain`` makes its model up the call stack (its ``create_pretraining_model``)."""
    return running_locals("spacy.training.pretrain", "create_pretraining_model") is not None


def _code_of(module: str, function: str) -> Any:
    """The code object of ``module.function`` (a function, or a class's method: ``"Class.method"``),
    ``None`` where the module is not imported or has no such function."""
    found: Any = sys.modules.get(module)
    for name in function.split("."):
        found = getattr(found, name, None)
    return getattr(found, "__code__", None)


def note_once(about: object, note: str) -> None:
    """Print ``note`` (an info line, as spaCy's commands print theirs) the first time it is said
    about ``about`` (an elmo component or a listener, held weakly): a command runs it on many
    batches, and says how it works there once, not per batch."""
    if first_time(about, note):
        msg.info(note)


def first_time(about: object, what: str) -> bool:
    """Whether ``what`` is said about ``about`` (held weakly) for the first time: true once, to one
    thread of several that ask at once (the check and the record are one step, under a lock)."""
    with _NOTED_LOCK:
        said = _NOTED.setdefault(about, set())
        if what in said:
            return False
        said.add(what)
        return True


#: What has been said, by what it is about (``first_time``), and the lock it is read and changed under.
_NOTED: weakref.WeakKeyDictionary[object, set[str]] = weakref.WeakKeyDictionary()
_NOTED_LOCK = fork_safe_lock()
