"""A biLM's digest (``doc._.elmo.bilm``, what a listener was trained with) is what it computes, not how its config
names its class: ``save_pretrained`` rewrites ``architectures`` and ``auto_map`` (the shipped model's, of
``ElmoForBidirectionalLM``, to ``ElmoModel``'s), so the shipped model inside a pipeline got another digest once the
pipeline was saved and loaded (was: its docs refused by the loaded pipeline as another biLM's, and its ner refused
as trained with another biLM)."""

import spacy

from hf_elmo import ElmoModel
from hf_elmo.embed import model_fingerprint
from hf_elmo.pretrained import DEFAULT_MODEL_NAME
from tests.spacy_elmo.pipeline_helpers import tiny_elmo


def test_saving_a_model_loaded_with_the_shipped_config_keeps_its_digest(tmp_path):
    shipped = ElmoModel.from_pretrained(DEFAULT_MODEL_NAME)
    before = model_fingerprint(shipped)
    shipped.save_pretrained(tmp_path / "saved")
    assert model_fingerprint(shipped) == before == model_fingerprint(ElmoModel.from_pretrained(tmp_path / "saved"))


def test_a_pipeline_s_biLM_keeps_its_digest_saved_and_loaded(tmp_path):
    elmo = tiny_elmo()
    elmo.config.architectures = ["ElmoForBidirectionalLM"]  # as the shipped model's config says
    elmo.config.auto_map = {"AutoModelForPreTraining": "modeling_lm.ElmoForBidirectionalLM"}
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.get_pipe("elmo").initialize(lambda: [], nlp=nlp, loader=lambda: elmo)
    bilm = nlp("Alice lives in Paris .")._.elmo.bilm
    nlp.to_disk(tmp_path / "pipeline")
    assert spacy.load(tmp_path / "pipeline")("Alice lives in Paris .")._.elmo.bilm.digest == bilm.digest
