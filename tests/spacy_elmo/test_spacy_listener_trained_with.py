"""A listening component remembers the biLM it was trained with (its listener's ``trained_with``, saved with it):
linked to an elmo component whose biLM has the same widths but other weights (sourced into another pipeline,
that pipeline's elmo component loading another biLM), it is refused in one line naming both biLMs and what to do
(was: it read the other biLM's layers, silently). No false refusals: the same biLM saved, reloaded or copied;
``nlp.initialize()`` training the component afresh; a listener saved by an older version (no record); a fine-tuned
biLM, whose weights change as it trains its listeners (what is saved is the biLM as saved beside them, under
``use_params(optimizer.averages)`` too); resumed training; ``nlp.replace_listeners``; a pickled pipeline."""

import pickle
import re
import shutil

import pytest
import spacy
import srsly
from thinc.api import Adam

from tests.spacy_elmo.pipeline_helpers import elmo_only, loader_settings, ner_config, training_examples

TEXT = "Alice lives in Paris ."


def listener(nlp, name="ner"):
    return next(node for node in nlp.get_pipe(name).model.walk() if node.name == "elmo-listener")


def trained(bilm_folder, frozen=True, updates=2, optimizer=None):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"@architectures": "spacy-elmo.ElmoBiLm.v3", "frozen": frozen}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(bilm_folder)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    optimizer = optimizer or Adam(0.01)
    for _ in range(updates):
        nlp.update(examples, sgd=optimizer)
    return nlp


def refusal(trained_with, runs):
    return (
        f"component 'ner' was trained with the biLM {trained_with}, but the elmo component 'elmo' runs the biLM "
        f"{runs}, of the same widths, whose layers it would read as those of its own: give 'elmo' the biLM 'ner' was "
        "trained with (source 'elmo' from the pipeline 'ner' comes from), or train 'ner' again"
    )


@pytest.fixture(scope="module")
def saved(tmp_path_factory, tiny_elmo_dir, other_tiny_elmo_dir):
    """The folders of two biLMs of the same widths, other weights (seeds 0 and 1), and of a pipeline whose ner
    was trained with the first."""
    root = tmp_path_factory.mktemp("trained-with")
    trained(tiny_elmo_dir).to_disk(root / "a")
    return tiny_elmo_dir, other_tiny_elmo_dir, root / "a"


def test_a_component_sourced_into_a_pipeline_of_another_biLM_is_refused_naming_both(saved):
    bilm_0, bilm_1, a = saved
    source = spacy.load(a)
    other = elmo_only(bilm_1)
    with pytest.raises(ValueError) as refused:  # was: added, its ner reading the other biLM's layers
        other.add_pipe("ner", source=source)
    trained_with = listener(source).trained_with
    assert trained_with == (str(bilm_0), source.get_pipe("elmo").bilm.digest)  # as where it was trained
    assert str(refused.value) == refusal(trained_with, other.get_pipe("elmo").bilm)


def test_a_sourced_component_whose_elmo_component_loads_another_biLM_is_refused_at_initialize(saved):
    """As ``spacy train`` does with a sourced ner (disabled while it initialises the pipeline)."""
    _, bilm_1, a = saved
    source = spacy.load(a)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", source=source)
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(bilm_1)
    with nlp.select_pipes(disable=["ner"]), pytest.raises(ValueError, match=re.escape("component 'ner' was trained")):
        nlp.initialize()


def test_a_component_trained_in_this_process_is_refused_by_another_biLM_too(saved):
    bilm_0, bilm_1, _ = saved
    source = trained(bilm_0)  # never saved
    other = elmo_only(bilm_1)
    with pytest.raises(ValueError, match=re.escape("component 'ner' was trained with the biLM")):
        other.add_pipe("ner", source=source)


def test_the_same_biLM_saved_reloaded_or_copied_is_no_error(saved, tmp_path):
    bilm_0, _, a = saved
    loaded = spacy.load(a)
    assert loaded(TEXT)._.elmo is not None
    shutil.copytree(a, tmp_path / "copy")  # another name, the same digest
    spacy.load(tmp_path / "copy")(TEXT)
    both = spacy.blank("en")
    both.add_pipe("elmo", source=loaded)
    both.add_pipe("ner", source=loaded)
    same_weights = elmo_only(bilm_0)
    same_weights.add_pipe("ner", source=spacy.load(a))
    same_weights(TEXT)
    pickle.loads(pickle.dumps(loaded))(TEXT)


def test_a_component_initialized_again_with_another_biLM_is_trained_with_that_one(saved, tmp_path):
    _, bilm_1, a = saved
    nlp = spacy.load(a)
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(bilm_1)
    nlp.initialize(lambda: training_examples(nlp))  # ner trained afresh: no refusal
    nlp.to_disk(tmp_path / "b")
    b = spacy.load(tmp_path / "b")
    assert (
        listener(b).trained_with.digest == b.get_pipe("elmo").bilm.digest != spacy.load(a).get_pipe("elmo").bilm.digest
    )
    with pytest.raises(ValueError, match=re.escape("component 'ner' was trained with the biLM")):
        spacy.load(a, exclude=["ner"]).add_pipe("ner", source=b)


def test_a_listener_saved_by_an_older_version_is_read_as_before(saved, tmp_path):
    _, bilm_1, a = saved
    shutil.copytree(a, tmp_path / "old")
    model_file = tmp_path / "old" / "ner" / "model"
    msg = srsly.msgpack_loads(model_file.read_bytes())
    assert any(attrs.pop("trained_with", None) for attrs in msg["attrs"])
    model_file.write_bytes(srsly.msgpack_dumps(msg))
    source = spacy.load(tmp_path / "old", exclude=["elmo"])
    assert listener(source).trained_with is None
    other = elmo_only(bilm_1)
    other.add_pipe("ner", source=source)
    other(TEXT)


def test_a_fine_tuned_biLM_saved_with_its_listeners_is_what_they_were_trained_with(saved, tmp_path):
    bilm_0, _, _ = saved
    optimizer = Adam(0.01, use_averages=True)
    nlp = trained(bilm_0, frozen=False, optimizer=optimizer)
    start = elmo_only(bilm_0).get_pipe("elmo").bilm
    assert listener(nlp).trained_with == nlp.get_pipe("elmo").bilm != start  # the weights as they are now
    nlp.add_pipe("sentencizer", last=True)  # spaCy links the pipeline again: no refusal
    with nlp.use_params(optimizer.averages):
        nlp.to_disk(tmp_path / "averaged")
    nlp.to_disk(tmp_path / "last")
    examples = training_examples(nlp)
    for folder in ("averaged", "last"):
        loaded = spacy.load(tmp_path / folder)
        assert listener(loaded).trained_with.digest == loaded.get_pipe("elmo").bilm.digest
        for _ in range(2):  # resumed training
            loaded.update(examples, sgd=Adam(0.01))
        loaded.add_pipe("sentencizer", name="relinked", last=True)
        pickle.loads(pickle.dumps(loaded))(TEXT)
        loaded.to_disk(tmp_path / f"{folder}-resumed")
        spacy.load(tmp_path / f"{folder}-resumed")(TEXT)
    other = elmo_only(bilm_0)  # the biLM before fine-tuning: another one now
    with pytest.raises(ValueError, match=re.escape("component 'ner' was trained with the biLM")):
        other.add_pipe("ner", source=nlp)


def test_replace_listeners_of_a_loaded_pipeline_is_no_error(saved):
    _, _, a = saved
    nlp = spacy.load(a)
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])
    nlp.remove_pipe("elmo")
    assert nlp(TEXT) is not None
