"""``spacy train`` of a new textcat on a trained pipeline's ``elmo`` and ``ner`` (both sourced), ``ner`` kept
as it is: with ``ner`` alone in frozen_components spaCy logs its W087 ("'elmo' will be (re)trained ... the
performance of 'ner' will be degraded"), though a frozen biLM's update changes nothing; README.md says so,
and that ``elmo`` in frozen_components and annotating_components too trains textcat without the warning."""

import logging

import spacy
from spacy.tokens import DocBin
from spacy.training.initialize import init_nlp
from thinc.api import Config

from tests.conftest import REPO
from tests.spacy_elmo.pipeline_helpers import loader_settings, ner_config, training_docs, training_examples

README = (REPO / "README.md").read_text(encoding="utf-8")


def config_on_a_trained_pipeline(tmp_path, tiny_elmo_dir, frozen: list[str], annotating: list[str]) -> Config:
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.add_pipe("ner", config=ner_config())
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    nlp.to_disk(tmp_path / "trained")
    DocBin(docs=training_docs(spacy.blank("en"))).to_disk(tmp_path / "train.spacy")
    config = Config().from_disk(REPO / "spacy_elmo" / "configs" / "textcat.cfg", interpolate=False)
    config["nlp"]["pipeline"] = ["elmo", "ner", "textcat"]
    config["components"]["elmo"] = {"source": str(tmp_path / "trained")}
    config["components"]["ner"] = {"source": str(tmp_path / "trained")}
    overrides = {"paths.train": str(tmp_path / "train.spacy"), "paths.dev": str(tmp_path / "train.spacy")}
    overrides |= {"components.textcat.model.tok2vec.encode.width": 16}
    overrides |= {"training.frozen_components": frozen, "training.annotating_components": annotating}
    config.to_disk(tmp_path / "textcat.cfg")
    return Config().from_disk(tmp_path / "textcat.cfg", overrides=overrides)


def spacy_warnings(caplog) -> list[str]:
    return [record.getMessage()[:6] for record in caplog.records if record.name == "spacy"]


def test_ner_alone_frozen_gets_spacys_w087_as_readme_says(tiny_elmo_dir, tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="spacy"):
        init_nlp(config_on_a_trained_pipeline(tmp_path, tiny_elmo_dir, ["ner"], []))
    assert spacy_warnings(caplog) == ["[W087]"]
    assert "spaCy logs its W087" in README


def test_elmo_frozen_and_annotating_beside_ner_trains_textcat_without_a_warning(tiny_elmo_dir, tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="spacy"):
        nlp = init_nlp(config_on_a_trained_pipeline(tmp_path, tiny_elmo_dir, ["elmo", "ner"], ["elmo"]))
    assert spacy_warnings(caplog) == []
    examples = training_examples(nlp)
    optimizer = nlp.resume_training()
    ner = nlp.get_pipe("ner").model.to_bytes()
    losses = [nlp.update(examples, sgd=optimizer, exclude=["elmo", "ner"], annotates=["elmo"]) for _ in range(6)]
    assert losses[-1]["textcat"] < losses[0]["textcat"]
    assert nlp.get_pipe("ner").model.to_bytes() == ner
    assert "list `elmo` in `frozen_components` and in `annotating_components` too" in README
