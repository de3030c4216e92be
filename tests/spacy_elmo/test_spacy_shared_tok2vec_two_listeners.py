"""A spaCy ``tok2vec`` component whose model listens to the ``elmo`` component (README.md's "Your own
config"), shared by a tagger and a parser (``spacy.Tok2VecListener.v1``): both train, a fine-tuned biLM
(``frozen = false``) gets their gradients through the ``tok2vec`` component and a frozen one is left as it
is, and the pipeline read back with ``spacy.load`` predicts the same."""

import pytest
import spacy
import torch
from spacy.training import Example

from spacy_elmo.bilm import get_elmo
from tests.spacy_elmo.pipeline_helpers import loader_settings, tok2vec_config
from tests.spacy_elmo.test_spacy_other_listening_components import COMPONENTS, TEXTS, gold

SHARED = {"@architectures": "spacy.Tok2VecListener.v1", "width": 16, "upstream": "tok2vec"}


def predictions(nlp: spacy.Language) -> list:
    return [[(t.tag_, t.dep_, t.head.i) for t in doc] for doc in nlp.pipe(TEXTS)]


@pytest.mark.parametrize("frozen", [True, False])
def test_a_tagger_and_a_parser_on_a_shared_elmo_tok2vec_train_it_and_read_back_the_same(
    tiny_elmo_dir, tmp_path, frozen
):
    spacy.util.fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", config={"model": {"frozen": frozen}})
    nlp.add_pipe("tok2vec", config={"model": tok2vec_config()})
    nlp.add_pipe("tagger", config={"model": {"@architectures": "spacy.Tagger.v2", "tok2vec": SHARED}})
    parser = COMPONENTS["parser"]
    nlp.add_pipe("parser", config={**parser, "model": {**parser["model"], "tok2vec": SHARED}})
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    examples = [Example.from_dict(nlp.make_doc(text), gold(text, i)) for i, text in enumerate(TEXTS)]
    optimizer = nlp.initialize(lambda: examples)
    assert nlp.get_pipe("elmo").listening_components == ["tok2vec"]
    before = {name: value.clone() for name, value in get_elmo(nlp.get_pipe("elmo").model).state_dict().items()}
    losses = [nlp.update(examples, sgd=optimizer, drop=0.0) for _ in range(12)]
    for name in ("tagger", "parser"):
        assert losses[-1][name] < 0.8 * losses[0][name], losses
    after = get_elmo(nlp.get_pipe("elmo").model).state_dict()
    assert all(torch.equal(before[name], after[name]) for name in before) is frozen
    assert (losses[-1]["elmo"] > 0) is not frozen
    nlp.to_disk(tmp_path / "pipeline")
    assert predictions(spacy.load(tmp_path / "pipeline")) == predictions(nlp)
