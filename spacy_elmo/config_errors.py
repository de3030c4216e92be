"""Bad settings in a spaCy config, refused as spaCy refuses its own: a ``ConfigValidationError``
(a ``ValueError``) that ``spacy train`` and ``spacy.load`` print as one block naming the setting,
not a traceback from deep in training."""

from collections.abc import Iterator
from typing import Any, NoReturn

from spacy.language import Language
from spacy.util import registry
from thinc.api import ConfigValidationError

from .call_stack import component_being_made, training_init
from .loader import names_a_model


def config_error(title: str, setting: list[str], message: str) -> ConfigValidationError:
    """The error titled ``title`` of the one problem ``message`` at the config setting ``setting`` (its path, e.g.
    ``["components", "ner"]``), without the config: what ``spacy train`` and ``spacy.load`` print as one block."""
    return ConfigValidationError(errors=[{"loc": setting, "msg": message}], title=title, show_config=False)


def check_setting(valid: bool, function: str, setting: str, message: str) -> None:
    """Raise ``ConfigValidationError`` for ``function``'s ``setting`` unless ``valid``, at the setting's path in the
    config (``setting_path``) where a component being made gives it."""
    if not valid:
        refuse_setting(function, setting, message)


def refuse_setting(function: str, setting: str, message: str) -> NoReturn:
    """Raise ``ConfigValidationError`` for ``function``'s ``setting``, at the setting's path in the config
    (``setting_path``) where a component being made gives it."""
    title, path = setting_path(f"Invalid settings of {function}", setting)
    raise config_error(title, path, message)


def setting_path(
    title: str, setting: str, component: tuple[str, dict[str, Any]] | None = None
) -> tuple[str, list[str]]:
    """The error title ``title`` and the path in the config of ``setting`` (e.g. ``"dropout"``, or
    ``"grad_scaler_config.init_scale"``), a setting of a registered function that the component spaCy makes up the
    call stack (``component_being_made``: ``nlp.add_pipe``, ``spacy.load``, ``spacy train``) calls: confection calls
    a function with its settings, not their place, and a pipeline of two listeners has two mixes of the same settings.
    The path is ``["components", NAME, ...the block..., setting]`` when one block of the component's settings holds
    ``setting`` (a bad value is a written one, the defaults being good); where several do, the title names the
    component and the path is ``[setting]``, as it is where no component is made (a registered function called alone)
    or none of its blocks holds ``setting``. ``component``: the name and settings of the component to look in, in place
    of the one being made (the one a model being initialised belongs to, say)."""
    made = component or component_being_made()
    if made is None:
        return title, [setting]
    name, config = made
    blocks = list(_blocks_holding(config, setting.split(".")[0]))
    if len(blocks) == 1:
        return title, ["components", name, *blocks[0], setting]
    return (f"{title} in component {name!r}" if blocks else title), [setting]


def _blocks_holding(block: dict[str, Any], key: str, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The paths of the blocks in ``block`` (itself included) that hold ``key``."""
    if key in block:
        yield path
    for name, value in block.items():
        if isinstance(value, dict):
            yield from _blocks_holding(value, key, (*path, str(name)))


def check_frozen_elmo_annotates(elmo: str, listening: str) -> None:
    """In a ``spacy train`` run, refuse a frozen elmo component ``elmo`` that does not annotate
    while the component ``listening`` to it is trained: ``nlp.update`` runs neither, so the
    listener would get no layers at step 0 (a traceback from deep in the training loop).

    The ``[training]`` settings come from the run of spaCy's ``init_nlp`` (what ``spacy train``
    runs first, and prints config errors of) that links the pipeline now: spaCy hands them to no
    component. Anywhere else (``spacy.load``, ``nlp.initialize``, a loop of one's own, which
    passes ``exclude`` and ``annotates`` itself) there is nothing to check."""
    training = training_settings()
    if training is None:
        return
    frozen, annotating = training["frozen_components"], training["annotating_components"]
    check_setting(
        elmo not in frozen or elmo in annotating or listening in frozen,
        "[training]",
        "annotating_components",
        f"the elmo component {elmo!r} is in frozen_components but not in annotating_components, so training never "
        f"runs it and {listening!r}, which listens to it and is trained, gets no ELMo layers: add {elmo!r} to "
        f"annotating_components (the frozen biLM then annotates each batch), or take it out of frozen_components "
        "(its model's frozen = true already keeps the biLM fixed)",
    )


def training_settings() -> dict[str, Any] | None:
    """The resolved ``[training]`` settings of the ``init_nlp`` call up the stack (``spacy train``
    and the commands that initialise a pipeline as it does), once it has resolved them (``None``:
    no such call, or not yet)."""
    return training_init().get("T")


def training_pipeline() -> Language | None:
    """The pipeline that the ``init_nlp`` call up the stack makes and links, once it has resolved
    ``[training]`` (``None``: no such call, or not yet)."""
    nlp = training_init().get("nlp")
    return nlp if isinstance(nlp, Language) else None


def check_sourced_elmo_loads_nothing(elmo: str) -> None:
    """In a ``spacy train`` run (``init_nlp`` up the call stack, once it has resolved ``[training]``),
    refuse ``[initialize.components.ELMO] loader`` naming a model (``--paths.elmo``) for the elmo
    component ``elmo`` that the config sources from a trained pipeline: spaCy initialises no sourced
    component, so the loader was never called and the pipeline trained with the sourced biLM, silently.
    The shipped configs' loader of no model (``name_or_path = null``) is no error: the sourced biLM
    is what it keeps anyway."""
    init = training_init()
    sourced, config = init.get("sourced") or {}, init.get("config")
    if elmo not in sourced or not isinstance(config, dict):
        return
    settings = config.get("initialize", {}).get("components", {}).get(elmo) or {}
    block = settings.get("loader") if isinstance(settings, dict) else None
    if not isinstance(block, dict) or not names_a_model(registry.resolve({"loader": block})["loader"]):
        return
    source, model = sourced[elmo].get("source"), block.get("name_or_path") or block.get("@misc")
    check_setting(
        False,
        f"[initialize.components.{elmo}]",
        "loader",
        f"it names the ELMo model {model!r}, but the elmo component {elmo!r} is sourced from {source!r}, and spaCy "
        f"initialises no sourced component, so {elmo!r} would keep the sourced biLM and never load {model!r}: leave "
        f'the model out (no --paths.elmo), or make {elmo!r} anew (factory = "elmo" in place of source) to load it',
    )


def sourced_from(component: str) -> str | None:
    """The pipeline that the ``init_nlp`` call up the call stack (``spacy train``) sources the
    component ``component`` from, as its config says (``None``: no such call, not yet past resolving
    ``[training]``, or not sourced)."""
    found = (training_init().get("sourced") or {}).get(component)
    return str(found["source"]) if isinstance(found, dict) and "source" in found else None
