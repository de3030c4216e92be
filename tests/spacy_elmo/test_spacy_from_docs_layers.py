"""``Doc.from_docs`` of docs the elmo component annotated: spaCy drops ``doc._.elmo`` (its warning W101), and a
listener on the joined doc says that is why it has no layers, and how to give it some."""

import re
import warnings

import pytest
import spacy
from spacy.tokens import Doc, DocBin

from tests.spacy_elmo.pipeline_helpers import loader_settings, textcat_config, training_examples

pytestmark = pytest.mark.filterwarnings("ignore:.W101. Skipping Doc custom extension")

JOINED = (
    "this doc was joined by Doc.from_docs from docs the elmo component annotated, and has no ELMo layers (spaCy "
    "drops doc._.elmo there, its warning W101), so the listening component predicts from zero ELMo features, which "
    "gives poor predictions: run the pipeline's elmo component on the joined doc first (nlp.get_pipe('embedder')(doc))"
)


@pytest.fixture
def nlp(tiny_elmo_dir):
    """An elmo component named 'embedder' and a textcat listening to any elmo component ("*")."""
    nlp = spacy.blank("en")
    nlp.add_pipe("elmo", name="embedder")
    config = textcat_config()
    config["model"]["tok2vec"]["elmo"]["upstream"] = "*"
    nlp.add_pipe("textcat", config=config)
    nlp.config["initialize"]["components"]["embedder"] = loader_settings(tiny_elmo_dir)
    nlp.initialize(lambda: training_examples(nlp))
    return nlp


def listener_warnings(run) -> list[str]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        run()
    return [str(w.message) for w in record if "ELMo listener" in str(w.message)]


def test_a_listener_on_docs_joined_by_from_docs_names_from_docs_and_the_elmo_component_to_run(nlp):
    """Was: "an elmo component did not run on these docs", which it had."""
    joined = Doc.from_docs([nlp("A ."), nlp("B .")])
    [message] = listener_warnings(lambda: nlp.get_pipe("textcat")(joined))
    assert message == f"ELMo listener (upstream '*'): {JOINED} (said once per listener)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fix it names gives the listener layers: no warning
        nlp.get_pipe("textcat")(nlp.get_pipe("embedder")(joined))
    assert set(joined.cats) == {"POS", "NEG"}


def test_docs_read_back_and_joined_name_from_docs_too(nlp):
    saved = DocBin(docs=[nlp("A ."), nlp("B .")], store_user_data=True).to_bytes()
    joined = Doc.from_docs(list(DocBin(store_user_data=True).from_bytes(saved).get_docs(nlp.vocab)))
    [message] = listener_warnings(lambda: nlp.get_pipe("textcat")(joined))
    assert JOINED in message


@pytest.mark.parametrize(
    "make",
    [
        lambda nlp: Doc.from_docs([nlp.make_doc("A ."), nlp.make_doc("B .")]),
        lambda nlp: nlp("Alice lives in Paris . Bob too .")[1:4].as_doc(copy_user_data=True),
    ],
    ids=["joined-docs-without-layers", "part-of-an-annotated-doc"],
)
def test_other_docs_without_layers_do_not_name_from_docs(nlp, make):
    doc = make(nlp)
    messages = listener_warnings(lambda: nlp.get_pipe("textcat")(doc))
    assert messages and not any(re.search("from_docs", m) for m in messages)
