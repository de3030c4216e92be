"""Mistakes in connecting listening components to the ``elmo`` component are one clear error
each: layers of another width than a component was trained on (refused before anything
changes); no ``elmo`` component, ``elmo`` after the listener (fresh, from a config, or trained),
a misspelt ``upstream``, a frozen ``elmo`` never initialised."""

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import spacy
from spacy.cli.train import train
from spacy.tokens import DocBin
from spacy.training.initialize import init_nlp
from thinc.api import Config, ConfigValidationError

from hf_elmo import ElmoConfig, ElmoModel
from spacy_elmo import ElmoListener
from tests.conftest import REPO
from tests.spacy_elmo.pipeline_helpers import (
    TINY,
    loader_settings,
    ner_config,
    trained_ner,
    training_docs,
    training_examples,
)
from tests.spacy_elmo.test_default_model import CONFIGS


def initialise(pipeline, tiny_elmo_dir, upstream="elmo"):
    """``pipeline`` (component names, "elmo" or "ner") built with ``add_pipe`` and initialised."""
    nlp = spacy.blank("en")
    config = ner_config()
    config["model"]["tok2vec"]["elmo"]["upstream"] = upstream
    for name in pipeline:
        nlp.add_pipe(name, config=config if name == "ner" else {})
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)


def other_bilm(folder, **changes):
    ElmoModel(ElmoConfig(**{**TINY, **changes})).save_pretrained(folder)
    return folder


def elmo_bytes(elmo_dir):
    """``to_bytes`` of an ``elmo`` component with the biLM in ``elmo_dir``."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(elmo_dir)
    nlp.initialize()
    return nlp.get_pipe("elmo").to_bytes()


@pytest.mark.parametrize(
    "changes, gives",
    [
        ({"projection_dim": 12}, "width 2P = 24"),
        ({"n_layers": 1}, "width 2P = 16 in 2 layers (L+1)"),
    ],
)
def test_loading_a_biLM_of_another_width_names_the_widths_and_the_fixes(tiny_elmo_dir, tmp_path, changes, gives):
    nlp = trained_ner(tiny_elmo_dir)
    other_bilm(tmp_path / "elmo" / "bilm", **changes)
    trained = "width 2P = 16" + (" in 3 layers (L+1)" if "n_layers" in changes else "")
    with pytest.raises(ValueError) as info:
        nlp.get_pipe("elmo").from_disk(tmp_path / "elmo")
    assert str(info.value) == (
        f"component 'ner' was trained on ELMo layers of {trained}, but the elmo component 'elmo' now gives "
        f"{gives}: give 'elmo' the biLM 'ner' was trained with, or train 'ner' again"
    )


@pytest.mark.parametrize("load", ["from_disk", "from_bytes", "initialize"])
def test_a_refused_biLM_of_another_width_leaves_the_pipeline_as_it_was(tiny_elmo_dir, tmp_path, load):
    nlp = trained_ner(tiny_elmo_dir, cache_mb=0)  # no cache: the layers below come from the biLM itself
    elmo = nlp.get_pipe("elmo")
    before = nlp("Alice lives in Paris .")
    wide = other_bilm(tmp_path / "elmo" / "bilm", projection_dim=12)
    loads = {
        "from_disk": lambda: elmo.from_disk(tmp_path / "elmo"),
        "from_bytes": lambda: elmo.from_bytes(elmo_bytes(wide)),
        "initialize": lambda: elmo.initialize(lambda: [], nlp=nlp, loader=lambda: ElmoModel.from_pretrained(wide)),
    }
    with pytest.raises(ValueError, match=r"^component 'ner' was trained on ELMo layers of width 2P = 16, "):
        loads[load]()
    after = nlp("Alice lives in Paris .")
    assert elmo.model.get_dim("nO") == 16
    np.testing.assert_array_equal(after._.elmo.layers, before._.elmo.layers)
    assert [(e.text, e.label_) for e in after.ents] == [(e.text, e.label_) for e in before.ents]


def test_sourcing_elmo_and_ner_trained_on_biLMs_of_other_widths_names_the_widths(tiny_elmo_dir, tmp_path):
    ner_source = trained_ner(tiny_elmo_dir)
    elmo_source = trained_ner(other_bilm(tmp_path / "wide", projection_dim=12))
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", source=elmo_source)
    with pytest.raises(ValueError, match=r"^component 'ner' was trained on ELMo layers of width 2P = 16, .* 2P = 24"):
        nlp.add_pipe("ner", source=ner_source)


def test_a_listener_with_no_elmo_component_says_to_add_one_before_it_as_a_config_error(tiny_elmo_dir):
    with pytest.raises(ConfigValidationError) as info:  # spacy train prints it as one block, no traceback
        initialise(["ner"], tiny_elmo_dir)
    (error,) = info.value.errors
    assert error["loc"] == ["nlp", "pipeline"]
    assert error["msg"] == (
        "ELMo listener (upstream 'elmo') is connected to no elmo component: the pipeline needs the elmo component "
        '\'elmo\' before the listening component: add it with nlp.add_pipe("elmo", before="<the listening '
        'component>"), or list it before that component in [nlp] pipeline'
    )


def test_an_elmo_component_added_after_its_listener_says_to_add_it_before(tiny_elmo_dir):
    with pytest.raises(ConfigValidationError) as info:
        initialise(["ner", "elmo"], tiny_elmo_dir)  # spaCy initialises ner first
    (error,) = info.value.errors
    assert error["loc"] == ["components", "ner"]
    assert error["msg"] == (
        "the elmo component 'elmo' it listens to comes after it: move 'elmo' before 'ner': add it with "
        'nlp.add_pipe("elmo", before="ner"), or list it before \'ner\' in [nlp] pipeline'
    )


def test_an_elmo_component_after_its_listener_in_the_config_says_so_before_training(tiny_elmo_dir, tmp_path):
    overrides = ner_training_overrides(tmp_path, tiny_elmo_dir, {"nlp.pipeline": ["ner", "elmo"]})
    with pytest.raises(ConfigValidationError) as info:
        init_nlp(Config().from_disk(CONFIGS / "ner.cfg", overrides=overrides))  # what spacy train runs first
    (error,) = info.value.errors
    assert error["msg"].startswith("the elmo component 'elmo' it listens to comes after it: move 'elmo' before 'ner'")


def test_a_listener_whose_elmo_component_was_removed_says_to_add_one_before_it(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", config=ner_config())
    nlp.add_pipe("elmo")
    nlp.remove_pipe("elmo")
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize(lambda: training_examples(nlp))
    (error,) = info.value.errors
    assert error["msg"] == (
        'the pipeline has no elmo component: add one before \'ner\' with nlp.add_pipe("elmo", before="ner"), or '
        "list one before it in [nlp] pipeline"
    )


@pytest.mark.parametrize(
    "change, says",
    [
        (
            lambda nlp: nlp.rename_pipe("elmo", "bert"),
            "its ELMo listener's upstream 'elmo' is no elmo component; the pipeline's are 'bert': set upstream to one "
            'of them (or "*": any)',
        ),
        (
            lambda nlp: nlp.remove_pipe("elmo"),
            'the pipeline has no elmo component: add one before \'ner\' with nlp.add_pipe("elmo", before="ner"), or '
            "list one before it in [nlp] pipeline",
        ),
    ],
    ids=["rename_pipe", "remove_pipe"],
)
def test_nlp_update_after_the_elmo_component_was_renamed_or_removed_names_the_listener_left_without_it(
    tiny_elmo_dir, change, says
):
    """``nlp.update`` of a listening component whose elmo component ``nlp.rename_pipe`` or
    ``nlp.remove_pipe`` took away refuses the pipeline as ``nlp.initialize()`` does (was: 'no layers
    for this training batch', advising [training] annotating_components and nlp.rehearse, neither
    of which it used)."""
    nlp = trained_ner(tiny_elmo_dir)
    change(nlp)
    with pytest.raises(ConfigValidationError) as info:
        nlp.update(training_examples(nlp))
    (error,) = info.value.errors
    assert (error["loc"], error["msg"]) == (["components", "ner"], says)


INITIALISE = {
    "nlp.initialize": lambda nlp: nlp.initialize(lambda: training_examples(nlp)),
    "the component alone": lambda nlp: nlp.get_pipe("ner").initialize(lambda: training_examples(nlp), nlp=nlp),
}


@pytest.mark.parametrize("initialise", list(INITIALISE))
@pytest.mark.parametrize(
    "change, says",
    [
        (
            lambda nlp: nlp.remove_pipe("elmo"),
            'the pipeline has no elmo component: add one before \'ner\' with nlp.add_pipe("elmo", before="ner"), or '
            "list one before it in [nlp] pipeline",
        ),
        (
            lambda nlp: (nlp.remove_pipe("elmo"), nlp.add_pipe("elmo")),
            "the elmo component 'elmo' it listens to comes after it: move 'elmo' before 'ner': add it with "
            'nlp.add_pipe("elmo", before="ner"), or list it before \'ner\' in [nlp] pipeline',
        ),
    ],
    ids=["remove_pipe", "moved_after"],
)
def test_initialising_after_the_connected_elmo_component_was_removed_or_moved_names_the_listener_left_without_it(
    tiny_elmo_dir, change, says, initialise
):
    """An elmo component connected to ``ner``'s listener, then removed (``nlp.remove_pipe``) or added
    again after ``ner``: ``nlp.initialize()``, and ``nlp.get_pipe("ner").initialize(...)`` alone,
    refuse the pipeline naming that (was: 'the elmo component 'elmo' it listens to has no weights
    ... leave 'elmo' enabled' or '... load them first with nlp.get_pipe("elmo")', from the
    listener's ``connected_to``, which still named the removed component)."""
    nlp = untrained_ner(tiny_elmo_dir)
    change(nlp)
    with pytest.raises(ConfigValidationError) as info:
        INITIALISE[initialise](nlp)
    (error,) = info.value.errors
    assert (error["loc"], error["msg"]) == (["components", "ner"], says)


def test_a_listener_of_a_renamed_elmo_component_is_connected_to_none_and_its_component_says_so(tiny_elmo_dir):
    """After ``nlp.rename_pipe("elmo", "bert")`` the listener of upstream 'elmo' is connected to no
    elmo component, and initialising ``ner`` alone says why, as ``nlp.initialize()`` does (was:
    ``connected_to`` 'elmo', a component the pipeline no longer has, and the error said it had no
    weights, to load them with ``nlp.get_pipe("elmo")``, which raises)."""
    nlp = untrained_ner(tiny_elmo_dir)
    nlp.rename_pipe("elmo", "bert")
    (listener,) = [node for node in nlp.get_pipe("ner").model.walk() if isinstance(node, ElmoListener)]
    assert listener.connected_to is None and nlp.get_pipe("bert").listener_map == {}
    said = []
    for initialise_it in (
        lambda: nlp.get_pipe("ner").initialize(lambda: training_examples(nlp), nlp=nlp),
        lambda: nlp.initialize(lambda: training_examples(nlp)),
    ):
        with pytest.raises(ConfigValidationError) as info:
            initialise_it()
        (error,) = info.value.errors
        said.append((error["loc"], error["msg"]))
    assert (
        said[0]
        == said[1]
        == (
            ["components", "ner"],
            "its ELMo listener's upstream 'elmo' is no elmo component; the pipeline's are 'bert': set upstream to one "
            'of them (or "*": any)',
        )
    )


UPDATE_WITHOUT_ELMO = """
import sys
import spacy
from tests.spacy_elmo.pipeline_helpers import training_examples
nlp = spacy.load(sys.argv[1], exclude=["elmo"])
try:
    nlp.update(training_examples(nlp))
except ValueError as error:
    print("spacy_elmo.component" in sys.modules, error.errors[0]["msg"] if hasattr(error, "errors") else error)
"""


def test_nlp_update_of_a_pipeline_loaded_without_its_elmo_component_says_to_add_one(tiny_elmo_dir, tmp_path):
    """``spacy.load(path, exclude=["elmo"])`` then ``nlp.update``, in a process that made no elmo
    component (so none can be in the pipeline), says the listener is connected to none (was: 'no
    layers for this training batch', advising [training] annotating_components and nlp.rehearse)."""
    trained_ner(tiny_elmo_dir).to_disk(tmp_path / "pipeline")
    command = [sys.executable, "-c", UPDATE_WITHOUT_ELMO, str(tmp_path / "pipeline")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert run.stdout == (
        "False ELMo listener (upstream 'elmo') is connected to no elmo component: the pipeline needs the elmo "
        'component \'elmo\' before the listening component: add it with nlp.add_pipe("elmo", before="<the listening '
        'component>"), or list it before that component in [nlp] pipeline\n'
    ), run.stderr[-2000:]


def test_a_pipeline_whose_listener_came_before_elmo_was_made_pickles_and_runs(tiny_elmo_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", config=ner_config())
    nlp.add_pipe("elmo", before="ner")  # the listener now holds a check of nlp
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    ner = pickle.loads(pickle.dumps(nlp.get_pipe("ner").model))
    assert [node.check_pipeline(training_docs(nlp)) for node in ner.walk() if isinstance(node, ElmoListener)] == [None]


def test_a_misspelt_upstream_is_a_config_error_naming_the_elmo_components_there_are(tiny_elmo_dir):
    with pytest.raises(ConfigValidationError) as info:
        initialise(["elmo", "ner"], tiny_elmo_dir, upstream="elmoo")
    (error,) = info.value.errors
    assert error["loc"] == ["components", "ner"]
    assert error["msg"] == (
        "its ELMo listener's upstream 'elmoo' is no elmo component; the pipeline's are 'elmo': set upstream to one "
        'of them (or "*": any)'
    )


def test_elmo_after_a_trained_ner_is_a_config_error_saying_to_move_it(tiny_elmo_dir):
    trained = trained_ner(tiny_elmo_dir)
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", source=trained)
    nlp.add_pipe("elmo", source=trained)
    with pytest.raises(ConfigValidationError) as info, nlp.select_pipes(disable=["ner"]):  # as spacy train resumes it
        nlp.initialize()
    (error,) = info.value.errors
    assert error["loc"] == ["components", "ner"]
    assert error["msg"].startswith("the elmo component 'elmo' it listens to comes after it: move 'elmo' before 'ner'")


def test_a_frozen_elmo_that_is_not_sourced_says_to_source_it_as_a_config_error(tiny_elmo_dir, tmp_path):
    frozen = {"training.frozen_components": ["elmo"], "training.annotating_components": ["elmo"]}
    overrides = ner_training_overrides(tmp_path, tiny_elmo_dir, frozen)
    config = Config().from_disk(CONFIGS / "ner.cfg", overrides=overrides)
    with pytest.raises(ConfigValidationError) as info:  # spacy train prints it as one block, no traceback
        init_nlp(config)  # what spacy train runs first
    (error,) = info.value.errors
    assert error["loc"] == ["training", "frozen_components"]
    assert error["msg"] == (
        "ELMo listener: the elmo component 'elmo' it listens to has no weights: it must be initialised before the "
        "listening component, and spaCy does not initialise a component in [training] frozen_components, so a "
        "frozen 'elmo' must be sourced from a trained pipeline (or keep it trainable: its model's frozen = true "
        "already keeps the biLM fixed)"
    )


def untrained_ner(elmo_dir):
    """blank English with ``elmo`` (the biLM in ``elmo_dir``, not loaded yet) and a ``ner`` listening to it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(elmo_dir)
    return nlp


def test_initialising_with_elmo_disabled_says_to_leave_it_enabled_not_to_unfreeze_it(tiny_elmo_dir):
    """``nlp.select_pipes(disable=["elmo"])`` around ``nlp.initialize()`` leaves the listener's
    upstream without weights: the error says so (was: the advice for [training] frozen_components,
    which the pipeline does not use)."""
    nlp = untrained_ner(tiny_elmo_dir)
    with nlp.select_pipes(disable=["elmo"]), pytest.raises(ConfigValidationError) as info:
        nlp.initialize(lambda: training_examples(nlp))
    (error,) = info.value.errors
    assert error["loc"] == ["components", "elmo"]
    assert error["msg"] == (
        "ELMo listener: the elmo component 'elmo' it listens to has no weights: it loads them when it is "
        "initialised, which must come before the listening component: leave 'elmo' enabled in nlp.initialize() "
        "(not disabled by nlp.select_pipes or [nlp] disabled), or load them first with "
        'nlp.get_pipe("elmo").initialize(lambda: [], nlp=nlp)'
    )


def test_spacy_pretrain_of_a_listening_layer_says_the_biLM_is_the_pretrained_part(tiny_elmo_dir):
    """``spacy pretrain`` initialises no component, so a tok2vec with an ELMo listener cannot be
    pretrained; spaCy's E874 comes from the listener's error, which now says why and what to do
    (was: the advice for [training] frozen_components)."""
    from spacy.training.pretrain import create_pretraining_model

    nlp = untrained_ner(tiny_elmo_dir)
    with pytest.raises(ValueError, match="E874") as info:
        create_pretraining_model(nlp, {"component": "ner", "layer": "tok2vec"})  # what spacy pretrain runs first
    cause = info.value.__context__
    assert isinstance(cause, ConfigValidationError)
    (error,) = cause.errors
    assert error["loc"] == ["pretraining", "component"]
    assert error["msg"].startswith(
        "ELMo listener: spacy pretrain initialises no component, so the elmo component 'elmo' this layer listens to "
        "has no biLM weights and the layer cannot be pretrained: the biLM is the pretrained part (to adapt it to "
        "your text, continue it with elmo pretrain and give the result as --paths.elmo)"
    )


def test_a_frozen_elmo_that_does_not_annotate_is_a_config_error_of_spacy_train_before_training(
    tiny_elmo_dir, tmp_path, capsys
):
    trained_ner(tiny_elmo_dir).to_disk(tmp_path / "trained")
    config = Config().from_disk(CONFIGS / "ner.cfg", interpolate=False)
    config["components"]["elmo"] = {"source": str(tmp_path / "trained")}  # frozen, so sourced with its weights
    config.to_disk(tmp_path / "frozen-elmo.cfg")
    small = {"training.max_steps": 2, "components.ner.model.tok2vec.encode.width": 16}
    sourced = {"paths.elmo": None}  # a sourced elmo loads no model (test_spacy_train_sourced_elmo_loader.py)
    changes = {"training.frozen_components": ["elmo"], **small, **sourced}
    overrides = ner_training_overrides(tmp_path, tiny_elmo_dir, changes)
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:  # was: a ValueError from the listener at step 0
        train(tmp_path / "frozen-elmo.cfg", tmp_path / "output", overrides=overrides)  # what spacy train runs
    assert info.value.code == 1
    output = capsys.readouterr().out
    assert "Invalid settings of [training]" in output and "Training pipeline" not in output
    assert (
        "annotating_components\tthe elmo component 'elmo' is in frozen_components but not in annotating_components, "
        "so training never runs it and 'ner', which listens to it and is trained, gets no ELMo layers: add 'elmo' to "
        "annotating_components (the frozen biLM then annotates each batch), or take it out of frozen_components "
        "(its model's frozen = true already keeps the biLM fixed)\n"
    ) in output
    annotating = {**overrides, "training.annotating_components": ["elmo"]}
    init_nlp(Config().from_disk(tmp_path / "frozen-elmo.cfg", overrides=annotating))  # the fix: no error
    both_frozen = {**overrides, "training.frozen_components": ["elmo", "ner"]}
    init_nlp(Config().from_disk(tmp_path / "frozen-elmo.cfg", overrides=both_frozen))  # ner is not trained


def ner_training_overrides(tmp_path: Path, elmo_dir: Path, changes: dict) -> dict:
    """Overrides of the shipped ner.cfg that train on a few docs written to ``tmp_path`` with the
    biLM in ``elmo_dir``, and ``changes``."""
    DocBin(docs=training_docs(spacy.blank("en"))).to_disk(tmp_path / "train.spacy")
    data = {"paths.train": str(tmp_path / "train.spacy"), "paths.dev": str(tmp_path / "train.spacy")}
    return {**data, "paths.elmo": str(elmo_dir), **changes}
