"""A ``batch_size`` for the ``elmo`` component that is no whole number >= 1 (``nlp.pipe``'s, ``nlp.evaluate``'s,
or ``component_cfg``'s) is refused in one line naming it (was: 0 gave no docs at all, silently, as spaCy's
batching makes no batch of 0 docs; -1, 2.5 or None an error of ``islice`` or "object is not an iterator")."""

import pytest
from spacy.training import Example

TEXTS = ["Alice lives in Paris .", "Bob hates London ."]


def refusal(value: str) -> str:
    return (
        "the elmo component 'elmo': batch_size (nlp.pipe's or nlp.evaluate's, or component_cfg={'elmo': "
        f"{{'batch_size': N}}}}) must be a whole number >= 1 of docs, got {value}"
    )


@pytest.mark.parametrize(
    ("batch_size", "described"), [(0, "the int 0"), (-1, "the int -1"), (2.5, "the float 2.5"), (True, "the bool True")]
)
def test_a_batch_size_of_no_whole_number_of_docs_is_refused_in_one_line(make_nlp, batch_size, described):
    nlp = make_nlp()
    with pytest.raises(ValueError) as info:
        list(nlp.pipe(TEXTS, batch_size=batch_size))
    assert str(info.value) == refusal(described)
    with pytest.raises(ValueError) as info:
        list(nlp.pipe(TEXTS, component_cfg={"elmo": {"batch_size": batch_size}}))
    assert str(info.value) == refusal(described)
    with pytest.raises(ValueError) as info:
        nlp.evaluate([Example(nlp.make_doc(text), nlp.make_doc(text)) for text in TEXTS], batch_size=batch_size)
    assert str(info.value) == refusal(described)


def test_component_cfg_batch_size_none_is_refused_and_one_doc_a_batch_gives_every_doc(make_nlp):
    nlp = make_nlp()
    with pytest.raises(ValueError) as info:
        list(nlp.pipe(TEXTS, component_cfg={"elmo": {"batch_size": None}}))
    assert str(info.value) == refusal("None")
    docs = list(nlp.pipe(TEXTS, batch_size=1))
    assert [doc.text for doc in docs] == TEXTS and all(doc._.elmo is not None for doc in docs)
