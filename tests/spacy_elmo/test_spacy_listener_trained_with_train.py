"""``spacy train`` of a config that sources a trained ner and gives its fresh elmo component another biLM (other
weights of the same widths, or other widths: ``--paths.elmo``) refuses it as a config error at
``[components.ner]``, printed without a traceback (was: a ValueError in a traceback, or, for other weights,
nothing: the ner trained on the other biLM's layers as on its own)."""

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training.initialize import init_nlp
from thinc.api import Adam, ConfigValidationError

from tests.spacy_elmo.pipeline_helpers import loader_settings, tiny_elmo, trained_ner, training_docs, training_examples
from tests.spacy_elmo.test_listener_errors import other_bilm

TRAINED_WITH = "component 'ner' was trained with the biLM {a} (weights {digest}), but the elmo component 'elmo' runs"
WIDTHS = "component 'ner' was trained on ELMo layers of width 2P = 16, but the elmo component 'elmo' now gives width"


def sourcing_config(tmp_path, bilm_folder):
    """A config that sources a ner trained with the biLM ``bilm-0`` and initialises its elmo with ``bilm_folder``."""
    nlp = trained_ner(tmp_path / "bilm-0")
    nlp.update(training_examples(nlp), sgd=Adam(0.01))
    nlp.to_disk(tmp_path / "a")
    DocBin(docs=training_docs(nlp)).to_disk(tmp_path / "train.spacy")
    config = spacy.util.load_config(tmp_path / "a" / "config.cfg")
    config["components"]["ner"] = {"source": str(tmp_path / "a")}
    config["paths"]["train"] = config["paths"]["dev"] = str(tmp_path / "train.spacy")
    config["corpora"] = {
        name: {"@readers": "spacy.Corpus.v1", "path": f"${{paths.{name}}}"} for name in ("train", "dev")
    }
    config["initialize"]["components"]["elmo"] = loader_settings(bilm_folder)
    return config, nlp.get_pipe("elmo").bilm


@pytest.mark.parametrize("other", ["weights", "widths"])
def test_a_sourced_ner_given_another_biLM_is_a_config_error_at_its_component(tmp_path, other):
    for seed in (0, 1):
        tiny_elmo(seed).save_pretrained(tmp_path / f"bilm-{seed}")
    given = tmp_path / "bilm-1" if other == "weights" else other_bilm(tmp_path / "wide", projection_dim=12)
    config, bilm = sourcing_config(tmp_path, given)
    with pytest.raises(ConfigValidationError) as refused:  # spacy train prints it as one block, no traceback
        init_nlp(config)  # what spacy train runs first
    (error,) = refused.value.errors
    assert error["loc"] == ["components", "ner"]
    start = TRAINED_WITH.format(a=tmp_path / "bilm-0", digest=bilm.digest[:12]) if other == "weights" else WIDTHS
    assert error["msg"].startswith(start)
    config["initialize"]["components"]["elmo"] = loader_settings(tmp_path / "bilm-0")
    init_nlp(config)  # the biLM it was trained with: no error
