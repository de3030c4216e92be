"""Helpers of the spaCy tests: a tiny random biLM and the loader settings that point at it."""

from pathlib import Path

import pytest
import spacy
import torch
from spacy.training import Example
from thinc.api import ConfigValidationError

from hf_elmo import ElmoConfig, ElmoModel

TINY = dict(
    char_embedding_dim=4, filters=[[1, 4], [2, 8], [3, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=2
)


def tiny_elmo(seed: int = 0) -> ElmoModel:
    torch.manual_seed(seed)
    return ElmoModel(ElmoConfig(**TINY)).eval()


def loader_settings(folder: Path) -> dict:
    """``[initialize.components.elmo]`` settings that load the biLM in ``folder``."""
    return {"loader": {"@misc": "spacy-elmo.ElmoLoader.v1", "name_or_path": str(folder)}}


def tok2vec_config(width: int = 16) -> dict:
    """A small ``spacy-elmo.ElmoTok2Vec.v1`` listening to the ``elmo`` component."""
    return {
        "@architectures": "spacy-elmo.ElmoTok2Vec.v1",
        "elmo": {"@architectures": "spacy-elmo.ElmoMixListener.v1", "upstream": "elmo", "dropout": 0.0},
        "embed": {
            "@architectures": "spacy.MultiHashEmbed.v2",
            "width": width,
            "attrs": ["NORM", "SHAPE"],
            "rows": [200, 50],
            "include_static_vectors": False,
        },
        "encode": {
            "@architectures": "spacy.MaxoutWindowEncoder.v2",
            "width": width,
            "depth": 1,
            "window_size": 1,
            "maxout_pieces": 2,
        },
    }


def ner_config() -> dict:
    return {
        "model": {
            "@architectures": "spacy.TransitionBasedParser.v2",
            "state_type": "ner",
            "extra_state_tokens": False,
            "hidden_width": 16,
            "maxout_pieces": 2,
            "use_upper": True,
            "tok2vec": tok2vec_config(),
        }
    }


def textcat_config() -> dict:
    return {
        "model": {
            "@architectures": "spacy.TextCatReduce.v1",
            "exclusive_classes": True,
            "use_reduce_first": False,
            "use_reduce_last": False,
            "use_reduce_max": True,
            "use_reduce_mean": True,
            "tok2vec": tok2vec_config(),
        }
    }


#: (text, entities as (start char, end char, label), positive?) of a tiny training corpus.
TRAIN_DATA = [
    ("Alice lives in Paris .", [(0, 5, "PER"), (15, 20, "LOC")], True),
    ("Bob hates London .", [(0, 3, "PER"), (10, 16, "LOC")], False),
    ("Carol loves Berlin very much .", [(0, 5, "PER"), (12, 18, "LOC")], True),
    ("Dave left Rome in anger .", [(0, 4, "PER"), (10, 14, "LOC")], False),
    ("Eve enjoys Madrid .", [(0, 3, "PER"), (11, 17, "LOC")], True),
    ("Frank dislikes Oslo .", [(0, 5, "PER"), (15, 19, "LOC")], False),
]


def training_docs(nlp):
    """Gold docs of ``TRAIN_DATA`` with entities and exclusive POS/NEG categories."""
    docs = []
    for text, entities, positive in TRAIN_DATA:
        doc = nlp.make_doc(text)
        doc.ents = [doc.char_span(start, end, label=label) for start, end, label in entities]
        doc.cats = {"POS": float(positive), "NEG": float(not positive)}
        docs.append(doc)
    return docs


def training_examples(nlp):
    """``Example``s of ``training_docs``: unannotated docs paired with the gold ones."""
    return [Example(nlp.make_doc(doc.text), doc) for doc in training_docs(nlp)]


def trained_ner(elmo_dir: Path, **elmo_config) -> spacy.Language:
    """blank English with ``elmo`` (the biLM in ``elmo_dir``) and a ``ner`` listening to it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config=elmo_config)
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(elmo_dir)
    examples = training_examples(nlp)
    nlp.initialize(lambda: examples)
    return nlp


def elmo_only(bilm_folder: Path) -> spacy.Language:
    """blank English with an ``elmo`` component alone, initialised with the biLM in ``bilm_folder``."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(bilm_folder)
    nlp.initialize()
    return nlp


def elmo_mix_loader_error(loader: dict) -> dict:
    """The one error of ``nlp.initialize`` for an NER pipeline whose tok2vec mixes a biLM of its own
    (``spacy-elmo.ElmoMix.v1``) given ``loader``, which cannot load it: its ``ConfigValidationError`` at the
    ``loader`` setting (checked here, with its title), as ``spacy train`` prints it."""
    config = ner_config()
    config["model"]["tok2vec"]["elmo"] = {
        "@architectures": "spacy-elmo.ElmoMix.v1",
        "bilm": {"@architectures": "spacy-elmo.ElmoBiLm.v3", "loader": loader},
    }
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", config=config)
    with pytest.raises(ConfigValidationError) as info:
        nlp.initialize(lambda: training_examples(nlp))
    assert info.value.title == "Cannot load the ELMo biLM of spacy-elmo.ElmoBiLm"
    (error,) = info.value.errors
    assert error["loc"] == ["components", "ner", "model", "tok2vec", "elmo", "bilm", "loader"]
    return error
