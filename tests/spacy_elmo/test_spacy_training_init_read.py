"""The checks of a ``spacy train`` run read spaCy's ``init_nlp`` call up the call stack, in one home
(``call_stack.training_init``): an ``init_nlp`` that names its locals as spaCy 3 does is read, and
one that names them otherwise (a later spaCy) turns the checks off rather than failing them."""

import spacy
import spacy.training.initialize

from spacy_elmo.config_errors import sourced_from, training_pipeline, training_settings


def test_init_nlp_is_read_by_spacy_3s_names_and_the_checks_are_off_under_others(monkeypatch):
    def init_nlp(renamed: bool) -> tuple:  # as spacy.training.initialize.init_nlp names them
        sourced = {"ner": {"source": "trained"}}
        nlp = spacy.blank("en")
        if renamed:
            training = {"frozen_components": []}
        else:
            T = {"frozen_components": []}  # noqa: N806 (spaCy's name)
        read = training_settings(), training_pipeline(), sourced_from("ner")
        assert sourced and nlp.lang == "en" and (training if renamed else T)
        return read

    monkeypatch.setattr(spacy.training.initialize, "init_nlp", init_nlp)
    settings, nlp, source = init_nlp(renamed=False)
    assert settings == {"frozen_components": []} and isinstance(nlp, spacy.Language) and source == "trained"
    assert init_nlp(renamed=True) == (None, None, None)
