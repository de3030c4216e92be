"""An ``elmo`` component sourced into a pipeline of another language than its biLM learnt words split by
says so, once, as loading the biLM into such a pipeline does (was: nothing: spaCy initialises no
sourced component, and only ``initialize`` compared the languages)."""

import warnings

import pytest
import spacy

from tests.spacy_elmo.pipeline_helpers import loader_settings, tiny_elmo

SAID = (
    "the elmo component 'elmo' loaded a biLM whose training text was split by spaCy's 'en' rules (its pre_tokenizer "
    "'spacy:en'), but this pipeline's tokenizer splits by the 'de' rules, so its tokens are not the words the biLM "
    'learnt and their vectors are poorer: use a pipeline of language \'en\' (spacy.blank("en"), [nlp] lang = "en"), '
    "or a biLM trained on text split by the 'de' rules"
)


@pytest.fixture
def english(tmp_path):
    elmo = tiny_elmo()
    elmo.config.pre_tokenizer = "spacy:en"
    elmo.save_pretrained(tmp_path / "tiny")
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo")
    nlp.config["initialize"]["components"]["elmo"] = loader_settings(tmp_path / "tiny")
    nlp.initialize()
    return nlp


def rules_warnings(build):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [str(w.message) for w in caught if "rules" in str(w.message)]


def test_sourcing_into_a_pipeline_of_another_language_warns_once(english):
    german = spacy.blank("de")
    assert rules_warnings(lambda: german.add_pipe("elmo", source=english)) == [SAID]
    assert rules_warnings(lambda: german.add_pipe("sentencizer")) == []  # linked again: said once
    assert german("Hallo Welt")._.elmo.layers.shape == (3, 2, 16)


def test_sourcing_into_a_pipeline_of_its_language_or_adding_to_its_own_says_nothing(english):
    assert rules_warnings(lambda: english.add_pipe("sentencizer")) == []
    assert rules_warnings(lambda: spacy.blank("en").add_pipe("elmo", source=english)) == []
