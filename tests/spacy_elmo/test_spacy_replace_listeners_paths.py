"""``nlp.replace_listeners`` with the paths spacy-transformers' users write: ``["model.tok2vec"]``, the
block holding the ELMo listener, gives the component a biLM of its own with its other tok2vec layers
kept; a listening component whose config has no ``model.tok2vec`` block (a spaCy ``tok2vec``
component listening to ``elmo``) is refused in one line, before anything changes."""

import pytest
import spacy

from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, tok2vec_config, training_examples


def trained(tiny_elmo_dir, shared_tok2vec=False):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    config = ner_config()
    if shared_tok2vec:
        nlp.add_pipe("tok2vec", config={"model": tok2vec_config()})
        config["model"]["tok2vec"] = {"@architectures": "spacy.Tok2VecListener.v1", "width": 16, "upstream": "tok2vec"}
    nlp.add_pipe("ner", config=config)
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = training_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.01
    for _ in range(3):
        nlp.update(examples, sgd=optimizer)
    return nlp, [eg.reference.text for eg in examples]


def entities(nlp, texts):
    return [[(e.start, e.end, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)]


def test_the_path_of_the_whole_tok2vec_gives_the_component_its_own_biLM_keeping_its_other_layers(
    tiny_elmo_dir, tmp_path
):
    nlp, texts = trained(tiny_elmo_dir)
    before = entities(nlp, texts)
    tok2vec_before = dict(nlp.config["components"]["ner"]["model"]["tok2vec"])
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec"])  # spacy-transformers' path (was: refused)
    tok2vec = nlp.config["components"]["ner"]["model"]["tok2vec"]
    assert tok2vec["@architectures"] == "spacy-elmo.ElmoTok2Vec.v1"
    assert (tok2vec["elmo"]["@architectures"], tok2vec["elmo"]["dropout"]) == ("spacy-elmo.ElmoMix.v1", 0.0)
    assert tok2vec["elmo"]["bilm"]["@architectures"] == "spacy-elmo.ElmoBiLm.v3"
    assert (tok2vec["embed"], tok2vec["encode"]) == (tok2vec_before["embed"], tok2vec_before["encode"])
    assert nlp.get_pipe("elmo").listening_components == []
    assert entities(nlp, texts) == before
    nlp.remove_pipe("elmo")
    nlp.to_disk(tmp_path / "own-biLM")
    alone = spacy.load(tmp_path / "own-biLM")
    assert alone.pipe_names == ["ner"]
    assert entities(alone, texts) == before


def test_a_path_holding_no_listener_is_refused_before_anything_changes(tiny_elmo_dir):
    nlp, _ = trained(tiny_elmo_dir)
    config_before = nlp.config.to_str()
    with pytest.raises(ValueError) as info:
        nlp.replace_listeners("elmo", "ner", ["model.tok2vec.encode"])
    assert str(info.value) == (
        "nlp.replace_listeners: the ELMo listener of 'ner' is at model.tok2vec.elmo, not model.tok2vec.encode: "
        'pass ["model.tok2vec.elmo"]'
    )
    assert nlp.config.to_str() == config_before
    assert nlp.get_pipe("elmo").listening_components == ["ner"]


def test_the_listener_of_a_tok2vec_component_is_refused_in_one_line_naming_what_to_do(tiny_elmo_dir):
    nlp, texts = trained(tiny_elmo_dir, shared_tok2vec=True)
    config_before = nlp.config.to_str()
    with pytest.raises(ValueError) as info:  # was: KeyError: 'tok2vec', from inside spaCy
        nlp.replace_listeners("elmo", "tok2vec", ["model.elmo"])
    assert str(info.value) == (
        "nlp.replace_listeners cannot replace the ELMo listener of 'tok2vec' (at model.elmo): spaCy hands the hook "
        "the listening component's model.tok2vec block, and the config of 'tok2vec' has none; to make a component "
        "listening to 'tok2vec' stand alone, give it a copy of 'tok2vec' (nlp.replace_listeners(\"tok2vec\", "
        '"ner", ["model.tok2vec"])), then a biLM of its own (nlp.replace_listeners("elmo", "ner", '
        '["model.tok2vec.elmo"]))'
    )
    assert nlp.config.to_str() == config_before
    assert nlp.get_pipe("elmo").listening_components == ["tok2vec"]
    before = entities(nlp, texts)
    nlp.replace_listeners("tok2vec", "ner", ["model.tok2vec"])  # what the error says to do works
    nlp.replace_listeners("elmo", "ner", ["model.tok2vec.elmo"])
    nlp.remove_pipe("tok2vec")
    nlp.remove_pipe("elmo")
    assert entities(nlp, texts) == before


def test_a_component_of_its_own_without_a_tok2vec_block_is_told_to_use_a_mix_of_its_own(tiny_elmo_dir):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("tok2vec", config={"model": tok2vec_config()})
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize()
    with pytest.raises(ValueError) as info:
        nlp.replace_listeners("elmo", "tok2vec", ["model.elmo"])
    assert str(info.value).endswith(
        "and the config of 'tok2vec' has none; give 'tok2vec' a biLM of its own in its config instead "
        "(spacy-elmo.ElmoMix.v1 at model.elmo)"
    )


def test_a_config_sourcing_the_component_with_replace_listeners_of_the_whole_tok2vec_loads_it_alone(
    tiny_elmo_dir, tmp_path
):
    """spaCy's ``replace_listeners`` setting of a sourced component, as spacy-transformers' users write it."""
    nlp, texts = trained(tiny_elmo_dir)
    before = entities(nlp, texts)
    nlp.to_disk(tmp_path / "trained")
    config = {"nlp": {"lang": "en", "pipeline": ["ner"]}}
    config["components"] = {"ner": {"source": str(tmp_path / "trained"), "replace_listeners": ["model.tok2vec"]}}
    alone = spacy.util.load_model_from_config(spacy.util.Config(config), auto_fill=True)
    assert alone.pipe_names == ["ner"]
    assert entities(alone, texts) == before
    alone.to_disk(tmp_path / "alone")
    assert entities(spacy.load(tmp_path / "alone"), texts) == before
