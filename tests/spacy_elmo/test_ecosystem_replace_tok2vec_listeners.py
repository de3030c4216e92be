"""``nlp.replace_listeners`` of a spaCy ``tok2vec`` component that listens to the ``elmo`` component
itself (a shared tok2vec with ELMo features): the component gets a copy of that tok2vec, ELMo
listener included, which predicts, saves, loads and trains as the original did."""

import numpy as np
import spacy

from spacy_elmo.listener import ElmoListener
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, tok2vec_config, training_examples


def build(tiny_elmo_dir):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("tok2vec", config={"model": tok2vec_config()})
    config = ner_config()
    config["model"]["tok2vec"] = {"@architectures": "spacy.Tok2VecListener.v1", "width": 16, "upstream": "tok2vec"}
    nlp.add_pipe("ner", config=config)
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.01
    for _ in range(4):
        nlp.update(examples, sgd=optimizer)
    return nlp, examples, optimizer


def test_replace_listeners_of_a_tok2vec_listening_to_elmo_gives_the_component_a_working_copy(tiny_elmo_dir, tmp_path):
    nlp, examples, optimizer = build(tiny_elmo_dir)
    texts = [eg.reference.text for eg in examples]
    ents = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)]
    tok2vec = nlp.get_pipe("tok2vec").model
    features = tok2vec.predict(list(nlp.pipe(texts, disable=["tok2vec", "ner"])))
    nlp.replace_listeners("tok2vec", "ner", ["model.tok2vec"])
    copies = [node for node in nlp.get_pipe("ner").model.walk() if node.name == "elmo-listener"]
    assert len(copies) == 1 and isinstance(copies[0], ElmoListener)
    assert [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)] == ents
    copy = next(node for node in nlp.get_pipe("ner").model.walk() if node.name == tok2vec.name)
    own = copy.predict(list(nlp.pipe(texts, disable=["tok2vec", "ner"])))
    np.testing.assert_allclose(np.concatenate(own), np.concatenate(features), atol=1e-6)
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    assert [[(e.start, e.end, e.label_) for e in doc.ents] for doc in loaded.pipe(texts)] == ents
    mix = next(node for node in nlp.get_pipe("ner").model.walk() if node.name == "elmo-scalar-mix")
    weights = mix.get_param("s").copy()
    losses: dict[str, float] = {}
    nlp.update(examples, sgd=optimizer, losses=losses)
    assert losses["ner"] > 0
    assert not np.array_equal(mix.get_param("s"), weights)  # the copy's mix learns from the elmo layers
    assert nlp.get_pipe("elmo").listener_map["ner"] == copies


def test_the_copy_listens_to_elmo_at_once_so_ner_can_be_made_standalone(tiny_elmo_dir, tmp_path):
    nlp, examples, _ = build(tiny_elmo_dir)
    texts = [eg.reference.text for eg in examples]
    ents = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)]
    tok2vec = nlp.get_pipe("tok2vec").model
    features = tok2vec.predict(list(nlp.pipe(texts, disable=["tok2vec", "ner"])))
    nlp.replace_listeners("tok2vec", "ner", ["model.tok2vec"])
    assert nlp.get_pipe("elmo").listening_components == ["tok2vec", "ner"]
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])  # was: spaCy's E887, 'ner' had no listener linked
    nlp.remove_pipe("tok2vec")
    nlp.remove_pipe("elmo")
    assert [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)] == ents
    own = next(node for node in nlp.get_pipe("ner").model.walk() if node.name == tok2vec.name)
    np.testing.assert_allclose(
        np.concatenate(own.predict([nlp.make_doc(text) for text in texts])), np.concatenate(features), atol=1e-6
    )
    nlp.to_disk(tmp_path / "standalone")
    loaded = spacy.load(tmp_path / "standalone")
    assert loaded.pipe_names == ["ner"]
    assert [[(e.start, e.end, e.label_) for e in doc.ents] for doc in loaded.pipe(texts)] == ents
