"""``nlp.replace_listeners`` of a component listening to two elmo components: the paths and the
blocks replaced are those of the listeners of the one named; the other's listener is left as it is."""

import spacy
from spacy.training import Example

from tests.spacy_elmo.pipeline_helpers import loader_settings, tok2vec_config


def tagger_of_two_elmo_components(tiny_elmo_dir):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", name="elmo_a")
    nlp.add_pipe("elmo", name="elmo_b")
    tok2vec = tok2vec_config()
    tok2vec["elmo"]["upstream"] = "elmo_a"
    tok2vec["embed"] = {"@architectures": "spacy-elmo.ElmoMixListener.v1", "upstream": "elmo_b", "dropout": 0.25}
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": tok2vec}})
    for name in ("elmo_a", "elmo_b"):
        nlp.config["initialize"]["components"][name] = loader_settings(tiny_elmo_dir)
    words, tags = ["Alice", "lives", "in", "Paris", "."], ["NNP", "VBZ", "IN", "NNP", "."]
    nlp.initialize(lambda: [Example.from_dict(nlp.make_doc(" ".join(words)), {"words": words, "tags": tags})])
    return nlp


def test_the_listener_of_the_named_elmo_component_is_replaced_and_the_other_kept(tiny_elmo_dir):
    nlp = tagger_of_two_elmo_components(tiny_elmo_dir)
    nlp.replace_listeners("elmo_a", "tagger", ["model.tok2vec.elmo"])
    tok2vec = nlp.config["components"]["tagger"]["model"]["tok2vec"]
    assert tok2vec["elmo"]["@architectures"] == "spacy-elmo.ElmoMix.v1"
    assert (tok2vec["embed"]["@architectures"], tok2vec["embed"]["upstream"]) == (
        "spacy-elmo.ElmoMixListener.v1",
        "elmo_b",
    )
    assert nlp.get_pipe("elmo_a").listening_components == []
    assert nlp.get_pipe("elmo_b").listening_components == ["tagger"]


def test_the_path_of_the_whole_tok2vec_replaces_only_the_named_elmo_component_s_listener(tiny_elmo_dir):
    nlp = tagger_of_two_elmo_components(tiny_elmo_dir)
    nlp.replace_listeners("elmo_b", "tagger", ["model.tok2vec"])
    tok2vec = nlp.config["components"]["tagger"]["model"]["tok2vec"]
    assert (tok2vec["elmo"]["@architectures"], tok2vec["elmo"]["upstream"]) == (
        "spacy-elmo.ElmoMixListener.v1",
        "elmo_a",
    )
    assert (tok2vec["embed"]["@architectures"], tok2vec["embed"]["dropout"]) == ("spacy-elmo.ElmoMix.v1", 0.25)
    assert nlp.get_pipe("elmo_a").listening_components == ["tagger"]
