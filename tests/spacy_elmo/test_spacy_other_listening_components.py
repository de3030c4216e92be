"""Every spaCy component whose model takes a tok2vec listens to the ``elmo`` component through
``spacy-elmo.ElmoTok2Vec.v1`` (its ``spacy-elmo.ElmoMixListener.v1``), not NER and textcat alone: a
short ``nlp.update`` loop trains it (its loss falls), and the pipeline saved with ``nlp.to_disk`` and read
back with ``spacy.load`` predicts what it did, as README.md ("Your own config") says."""

import pytest
import spacy
from spacy.training import Example

from tests.spacy_elmo.pipeline_helpers import loader_settings, tok2vec_config

TEXTS = ["Alice lives in Paris .", "Bob hates London .", "Carol loves Berlin very much .", "Dave left Rome in anger ."]


def gold(text: str, index: int) -> dict:
    """Every annotation the components read: the capitalised words are one class, the others another."""
    words = text.split()
    upper = [word[0].isupper() for word in words]
    return {
        "tags": ["N" if u else "X" for u in upper],
        "pos": ["PROPN" if u else "VERB" for u in upper],
        "morphs": ["Case=Nom" if u else "" for u in upper],
        "lemmas": [word if u else word + "s" for word, u in zip(words, upper)],
        "heads": [1] * len(words),
        "deps": ["ROOT" if i == 1 else "nsubj" for i in range(len(words))],
        "sent_starts": [1] + [0] * (len(words) - 1),
        "spans": {"sc": [(0, len(words[0]), "PER")]},
        "cats": {"A": float(index % 2), "B": 1.0},
    }


def tagger_model() -> dict:
    return {"@architectures": "spacy.Tagger.v2", "tok2vec": tok2vec_config()}


COMPONENTS = {
    "tagger": {"model": tagger_model()},
    "morphologizer": {"model": tagger_model()},
    "senter": {"model": tagger_model()},
    "trainable_lemmatizer": {"model": tagger_model(), "min_tree_freq": 1},
    "parser": {
        "model": {
            "@architectures": "spacy.TransitionBasedParser.v2",
            "state_type": "parser",
            "extra_state_tokens": False,
            "hidden_width": 16,
            "maxout_pieces": 2,
            "use_upper": True,
            "tok2vec": tok2vec_config(),
        },
        "min_action_freq": 1,
    },
    "spancat": {
        "model": {
            "@architectures": "spacy.SpanCategorizer.v1",
            "reducer": {"@layers": "spacy.mean_max_reducer.v1", "hidden_size": 16},
            "scorer": {"@layers": "spacy.LinearLogistic.v1"},
            "tok2vec": tok2vec_config(),
        }
    },
    "textcat_multilabel": {
        "model": {
            "@architectures": "spacy.TextCatReduce.v1",
            "exclusive_classes": False,
            "use_reduce_first": False,
            "use_reduce_last": False,
            "use_reduce_max": True,
            "use_reduce_mean": True,
            "tok2vec": tok2vec_config(),
        }
    },
}


def predictions(nlp: spacy.Language) -> list:
    return [
        (
            sorted(doc.cats.items()),
            [(t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i, t.is_sent_start) for t in doc],
            [(span.start, span.end, span.label_) for span in doc.spans.get("sc", [])],
        )
        for doc in nlp.pipe(TEXTS)
    ]


@pytest.mark.parametrize("name", sorted(COMPONENTS))
def test_a_component_listening_to_elmo_trains_and_predicts_the_same_read_back(tiny_elmo_dir, tmp_path, name):
    spacy.util.fix_random_seed(0)  # the tagger-like losses fall to 0.69-0.75 of the first in 12 steps, by seed
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe(name, config=COMPONENTS[name])
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = [Example.from_dict(nlp.make_doc(text), gold(text, i)) for i, text in enumerate(TEXTS)]
    optimizer = nlp.initialize(lambda: examples)
    assert nlp.get_pipe("elmo").listening_components == [name]
    losses = [nlp.update(examples, sgd=optimizer, drop=0.0)[name] for _ in range(12)]
    assert losses[-1] < 0.85 * losses[0], losses
    nlp.to_disk(tmp_path / "pipeline")
    assert predictions(spacy.load(tmp_path / "pipeline")) == predictions(nlp)
