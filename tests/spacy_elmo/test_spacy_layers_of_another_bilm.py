"""``doc._.elmo`` records the biLM that computed it (``ElmoLayers.bilm``: its name and a digest of its config and
weights), kept by ``DocBin``; a listener whose own elmo component does not run (disabled) and finds the layers of
another biLM of the same widths (docs another pipeline annotated) refuses them in one line naming both, where it
read them silently; layers of the same weights (another copy of the model), or that record no biLM (older
versions), are read as before. The digest is computed once per loaded biLM, not per batch."""

import copy
import pickle
import shutil

import pytest
import spacy
import torch
from spacy.tokens import DocBin
from thinc.api import SGD

import hf_elmo.embed
from spacy_elmo import ElmoLayers
from spacy_elmo.bilm import _shim
from spacy_elmo.listener import ElmoListener, TrainedWith
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, trained_ner, training_examples

TEXTS = ["Alice lives in Paris .", "Bob hates London .", "Carol loves Berlin very much ."]


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory, tiny_elmo_dir, other_tiny_elmo_dir):
    """Two pipelines whose biLMs have the same widths but other weights (seeds 0 and 1), and A's annotated docs
    as DocBin bytes."""
    root = tmp_path_factory.mktemp("pipelines")
    a, b = root / "a", root / "b"
    trained_ner(tiny_elmo_dir).to_disk(a)
    trained_ner(other_tiny_elmo_dir).to_disk(b)
    docs = list(spacy.load(a).pipe(TEXTS))
    return a, b, DocBin(store_user_data=True, docs=docs).to_bytes()


def read_back(data, nlp):
    return list(DocBin().from_bytes(data).get_docs(nlp.vocab))


def refusal(a, b):
    return (
        f"ELMo listener (upstream 'elmo'): doc._.elmo holds layers that the biLM {a}/elmo/bilm (weights "
        f"{{a}}) computed, not the biLM {b}/elmo/bilm (weights {{b}}) of the elmo component 'elmo' it listens to "
        "(docs that another pipeline annotated, e.g. read from a DocBin): run this pipeline's elmo component 'elmo' "
        "on the docs (leave it enabled), or use the pipeline whose biLM made them"
    )


def forget_trained_with(nlp):
    """Make ``nlp``'s ner as an older version saved it: its listener records no biLM it was trained with."""
    for node in nlp.get_pipe("ner").model.walk():
        if isinstance(node, ElmoListener):
            node.attrs["trained_with"] = TrainedWith()


def digest(nlp):
    return _shim(nlp.get_pipe("elmo").model).bilm().digest


def test_the_layers_of_another_biLM_of_the_same_widths_are_refused_naming_both(pipelines):
    a, b, data = pipelines
    other = spacy.load(b, disable=["elmo"])
    docs = read_back(data, other)
    assert docs[0]._.elmo.bilm.name == f"{a}/elmo/bilm" and docs[0]._.elmo.width == 16
    with pytest.raises(ValueError) as info:  # was: read, silently: the ner of b predicted from a's features
        list(other.pipe(docs))
    expected = refusal(a, b).format(a=digest(spacy.load(a))[:12], b=digest(other)[:12])
    assert str(info.value) == expected
    copied = pickle.loads(pickle.dumps(other))  # as a worker of nlp.pipe(n_process=2) gets it (spawn)
    with pytest.raises(ValueError) as info:
        copied(read_back(data, copied)[0])
    assert str(info.value) == expected


def test_the_layers_of_the_same_weights_are_read_as_before(pipelines, tmp_path):
    a, _, data = pipelines
    whole = entities(spacy.load(a).pipe(TEXTS))
    own = spacy.load(a, disable=["elmo"])
    assert entities(own.pipe(read_back(data, own))) == whole
    shutil.copytree(a, tmp_path / "copy")  # the same biLM, loaded from elsewhere: another name, the same digest
    elsewhere = spacy.load(tmp_path / "copy", disable=["elmo"])
    assert entities(elsewhere.pipe(read_back(data, elsewhere))) == whole


def entities(docs):
    return [[(ent.text, ent.label_) for ent in doc.ents] for doc in docs]


def test_layers_that_record_no_biLM_are_read_as_before(pipelines):
    _, b, data = pipelines
    other = spacy.load(b, disable=["elmo"])
    docs = read_back(data, other)
    for doc in docs:  # as an older version saved them
        doc._.elmo = ElmoLayers(layers=doc._.elmo.layers, spans=doc._.elmo.spans, component="elmo")
    assert len(list(other.pipe(docs))) == 3


def test_the_digest_is_computed_once_per_loaded_biLM(pipelines, monkeypatch):
    a, b, _ = pipelines
    counted = []
    fingerprint = hf_elmo.embed.model_fingerprint
    monkeypatch.setattr(hf_elmo.embed, "model_fingerprint", lambda model: counted.append(1) or fingerprint(model))
    nlp = spacy.load(
        a, exclude=["ner"]
    )  # trained with a's biLM, ner would refuse b's (test_spacy_listener_trained_with)
    docs = list(nlp.pipe(TEXTS * 4, batch_size=2))
    assert len(counted) == 1 and len({doc._.elmo.bilm for doc in docs}) == 1
    elmo = nlp.get_pipe("elmo")
    elmo.from_bytes(spacy.load(b, exclude=["ner"]).get_pipe("elmo").to_bytes())  # another biLM: its own digest
    assert nlp(TEXTS[0])._.elmo.bilm.digest != docs[0]._.elmo.bilm.digest and len(counted) == 2


def test_changed_weights_get_another_digest(tiny_elmo_dir):
    """A fine-tuned biLM's weights change at each step (``finish_update``): the digest is of the weights the
    layers came from."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"frozen": False}})
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize()
    shim = _shim(nlp.get_pipe("elmo").model)
    first = shim.bilm()
    weight = next(shim._model.parameters())
    with torch.no_grad():
        weight.add_(1.0)
    assert shim.bilm() == first  # not read again before a step
    shim.finish_update(SGD(0.1))
    stepped = shim.bilm()
    assert stepped.digest != first.digest and stepped.name == first.name


def test_a_component_shared_by_two_pipelines_reads_the_layers_of_either(pipelines):
    """``nlp.add_pipe("ner", source=a)`` shares a's ner (and its listener) with the new pipeline, whose elmo
    component links it too: each pipeline's layers are read, not refused as another's (was: a's own docs refused
    after its ner was sourced elsewhere); those of a third biLM still are."""
    a, b, data = pipelines
    first = spacy.load(a)
    forget_trained_with(first)  # as saved by an older version: else b's elmo refuses a ner trained with a's biLM
    second = spacy.load(b, exclude=["ner"])
    second.add_pipe("ner", source=first)
    assert second.get_pipe("ner") is first.get_pipe("ner")
    assert entities([first(TEXTS[0])]) == entities(spacy.load(a).pipe(TEXTS[:1]))
    assert second(TEXTS[0])._.elmo.bilm == second.get_pipe("elmo").bilm  # read by the shared ner
    third = spacy.load(b, exclude=["ner"])
    third.add_pipe("ner", source=spacy.load(b))
    with third.select_pipes(disable=["elmo"]), pytest.raises(ValueError, match="^ELMo listener .* holds layers that"):
        list(third.pipe(read_back(data, third)))


@pytest.mark.parametrize("make_copy", [copy.deepcopy, lambda nlp: pickle.loads(pickle.dumps(nlp))])
def test_a_copy_given_another_biLM_reads_its_layers(pipelines, make_copy):
    """A copy of a pipeline keeps the biLM its listeners were linked to, not the link: given another biLM (of the
    same widths), its elmo component's layers are read (was: refused as another biLM's than the copied one)."""
    a, b, _ = pipelines
    nlp = spacy.load(a)
    nlp(TEXTS[0])
    copied = make_copy(nlp)
    forget_trained_with(copied)  # as saved by an older version: else b's biLM is refused for a ner trained with a's
    copied.get_pipe("elmo").from_bytes(spacy.load(b).get_pipe("elmo").to_bytes())
    assert copied(TEXTS[0])._.elmo.bilm.name == f"{b}/elmo/bilm"


def test_a_fine_tuned_biLM_annotating_in_training_computes_no_digest(tiny_elmo_dir, monkeypatch):
    """A fine-tuned biLM's weights change at every step: annotating the batches of ``nlp.update`` (its
    ``annotates``) it records no biLM, so its digest is not computed at every step (was: once a step); outside
    training it is, once for the weights of the step."""
    counted = []
    fingerprint = hf_elmo.embed.model_fingerprint
    monkeypatch.setattr(hf_elmo.embed, "model_fingerprint", lambda model: counted.append(1) or fingerprint(model))
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"frozen": False}})
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    optimizer = nlp.initialize(lambda: training_examples(nlp))
    for _ in range(3):
        nlp.update(training_examples(nlp), sgd=optimizer, annotates=["elmo"])
    assert counted == []
    assert [doc._.elmo.bilm.name for doc in nlp.pipe(TEXTS)] == [str(tiny_elmo_dir)] * 3 and counted == [1]
