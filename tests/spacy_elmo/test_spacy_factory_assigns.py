"""``nlp.analyze_pipes()`` says what the ``elmo`` component sets: ``doc._.elmo`` and, by default (a vocab without
static vectors), ``doc.tensor`` (was: ``doc._.elmo`` alone, so a later component that requires ``doc.tensor`` was
reported as missing it)."""

from spacy.language import Language


@Language.component("needs_a_tensor", requires=["doc.tensor"])
def needs_a_tensor(doc):
    return doc


def test_analyze_pipes_lists_the_tensor_that_the_component_sets(make_nlp):
    nlp = make_nlp()
    nlp.add_pipe("needs_a_tensor")
    analysis = nlp.analyze_pipes()
    assert analysis["summary"]["elmo"]["assigns"] == ["doc._.elmo", "doc.tensor"]
    assert analysis["problems"]["needs_a_tensor"] == []
    assert nlp("The cat sat .").tensor.shape == (4, 16)  # the default: set, as declared
