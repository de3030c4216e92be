"""The elmo component's check that no listener of a spaCy ``tok2vec`` reads its ``doc.tensor``
(``_check_no_listener_reads_tensor``) walks the later components' models once per set of running
components, not on every batch; a pipeline changed since (a component disabled, enabled, added or
moved) is checked again."""

import pickle

import pytest
import spacy

import spacy_elmo.component as component_module
from tests.spacy_elmo.test_spacy_disabled_tok2vec_tensor import REFUSED, TEXTS, save_pipeline


@pytest.fixture(scope="module")
def shared(tiny_elmo_dir, tmp_path_factory):
    return save_pipeline(tmp_path_factory.mktemp("shared") / "pipeline", tiny_elmo_dir)


@pytest.fixture
def walks(monkeypatch):
    """The running components each walk of the later components' models was given, by name."""
    found: list[list[str]] = []
    walk = component_module._refuse_tensor_readers

    def counted(component, running):
        found.append([name for name, _ in running])
        walk(component, running)

    monkeypatch.setattr(component_module, "_refuse_tensor_readers", counted)
    return found


def test_the_models_are_walked_once_for_many_batches(shared, walks):
    nlp = spacy.load(shared)
    assert len(list(nlp.pipe(TEXTS * 3, batch_size=1))) == 6
    nlp(TEXTS[0])  # nlp(text): the same components
    assert walks == [["elmo", "tok2vec", "ner"]]  # was: one walk a batch, 7


def test_a_disabled_enabled_added_or_moved_component_is_checked_again(shared, walks):
    nlp = spacy.load(shared)
    list(nlp.pipe(TEXTS))
    with nlp.select_pipes(disable=["tok2vec"]):
        with pytest.raises(ValueError) as info:
            list(nlp.pipe(TEXTS))
        assert str(info.value) == REFUSED
    with pytest.raises(ValueError, match="^the component 'ner' listens to the tok2vec component 'tok2vec', which "):
        nlp(TEXTS[0], disable=["tok2vec"])
    list(nlp.pipe(TEXTS))  # all enabled again: passed before
    nlp.add_pipe("sentencizer", first=True)
    list(nlp.pipe(TEXTS))
    nlp.remove_pipe("tok2vec")
    nlp.add_pipe("tok2vec", source=spacy.load(shared))  # after ner now
    with pytest.raises(ValueError, match="^the component 'ner' listens to the tok2vec component 'tok2vec', which runs"):
        nlp(TEXTS[0])
    assert walks == [
        ["elmo", "tok2vec", "ner"],
        ["elmo", "ner"],
        ["elmo", "ner"],
        ["sentencizer", "elmo", "tok2vec", "ner"],
        ["sentencizer", "elmo", "ner", "tok2vec"],
    ]


def test_a_copy_checks_its_own_components(shared, walks):
    nlp = spacy.load(shared)
    list(nlp.pipe(TEXTS))
    copied = pickle.loads(pickle.dumps(nlp))
    with pytest.raises(ValueError) as info:
        copied(TEXTS[0], disable=["tok2vec"])
    assert str(info.value) == REFUSED
    list(copied.pipe(TEXTS))
    assert len(walks) == 3
