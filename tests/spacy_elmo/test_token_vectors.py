"""``token.vector``, ``span.vector``, ``doc.vector`` and ``similarity`` from ELMo: the average of
the biLM layers (``hf_elmo.ScalarMix`` at its start), on by default without static vectors."""

import re

import numpy as np
import pytest
import torch
from spacy.tokens import Doc, DocBin

from hf_elmo import ScalarMix, batch_to_ids
from spacy_elmo import ElmoLayers, set_token_vectors
from tests.spacy_elmo.pipeline_helpers import tiny_elmo

ATOL = 1e-6


def hf_elmo_vectors(words):
    """hf_elmo's vectors of one sentence: a fresh ScalarMix (s = 0, gamma = 1) over all layers."""
    with torch.no_grad():
        out = tiny_elmo()(input_ids=batch_to_ids([words]))
        mixed = ScalarMix(num_layers=len(out.hidden_states))(out.hidden_states, out.attention_mask)
    return mixed[0].numpy()


def cosine(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_token_span_and_doc_vectors_equal_hf_elmo_s_layer_average(make_nlp):
    nlp = make_nlp()
    doc = nlp("The cat sat on the mat .")
    expected = hf_elmo_vectors([t.text for t in doc])
    np.testing.assert_allclose(doc.tensor, expected, atol=ATOL)
    for token in doc:
        assert token.has_vector
        np.testing.assert_allclose(token.vector, expected[token.i], atol=ATOL)
    np.testing.assert_allclose(doc[1:4].vector, expected[1:4].mean(axis=0), atol=ATOL)
    np.testing.assert_allclose(doc.vector, expected.mean(axis=0), atol=ATOL)


def test_a_doc_with_the_vector_hooks_pickles_and_deep_copies_with_its_vectors(make_nlp):
    """joblib, Dask, Ray and multiprocessing pickle docs; the hooks held a weak reference (TypeError)."""
    import copy
    import pickle

    doc = make_nlp()("The cat sat on the mat .")
    span_doc = doc[1:4].as_doc()  # its hooks read the tensor rows
    for original in (doc, span_doc):
        for again in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
            np.testing.assert_allclose(again[1].vector, original[1].vector, atol=ATOL)
            assert again[0].similarity(again[1]) == pytest.approx(original[0].similarity(original[1]))


def test_a_span_s_doc_reads_its_vectors_from_the_tensor_rows_it_was_given_as_the_span_s_own(make_nlp):
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob too .")
    span = doc[2:5]
    new = span.as_doc()
    assert new._.elmo is None  # spaCy copies no doc-level extension value
    np.testing.assert_allclose(new.vector, span.vector, atol=ATOL)
    for token, original in zip(new, span):
        np.testing.assert_allclose(token.vector, original.vector, atol=ATOL)
    np.testing.assert_allclose(new[0:2].vector, doc[2:4].vector, atol=ATOL)
    other = nlp("Bob lives in Rome .")
    assert new.similarity(other) == pytest.approx(span.similarity(other), abs=1e-6)
    assert new[1].similarity(other[1]) == pytest.approx(doc[3].similarity(other[1]), abs=1e-6)


def test_running_elmo_again_on_a_span_s_doc_gives_its_tensor_the_vectors_of_its_new_layers(make_nlp):
    """Was: the tensor kept the rows copied from the span's doc (read in that doc's context), while
    ``doc._.elmo`` and ``token.vector`` gave the span's doc's own vectors."""
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob too .")
    again = nlp(doc[2:5].as_doc())
    expected = hf_elmo_vectors(["in", "Paris", "."])
    np.testing.assert_allclose(again.tensor, expected, atol=ATOL)
    np.testing.assert_allclose(again[1].vector, expected[1], atol=ATOL)


def test_running_elmo_on_a_span_s_doc_leaves_the_hooks_of_the_doc_it_came_from_as_they_were(make_nlp):
    """``span.as_doc()`` hands the new doc the hook dicts of the doc it came from: the hooks set on
    the new doc go in dicts of its own (was: in the shared ones, so that the doc it came from, reading
    its tensor after ``doc._.elmo = None``, said it had no ELMo layers)."""
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob too .")
    vector, token_vector = doc.vector.copy(), doc[1].vector.copy()
    doc._.elmo = None  # its hooks read its tensor now
    new = nlp(doc[2:5].as_doc())
    assert new.user_hooks is not doc.user_hooks and new.user_token_hooks is not doc.user_token_hooks
    np.testing.assert_allclose(doc.vector, vector, atol=ATOL)
    np.testing.assert_allclose(doc[1].vector, token_vector, atol=ATOL)


def test_running_elmo_on_a_span_s_doc_of_a_read_back_doc_leaves_the_read_back_doc_s_hooks_as_they_were(make_nlp):
    """As for a doc the elmo component annotated here, though a doc read back (``Doc.from_bytes``, ``DocBin``) had
    its layers set by neither (was: the hooks set on the span's doc went in the hook dicts it shares with the doc
    read back, which then said it had no ELMo layers)."""
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob too .")
    vector, token_vector = doc.vector.copy(), doc[1].vector.copy()
    by_docbin = DocBin(docs=[doc], store_user_data=True).to_bytes()
    for loaded in (
        Doc(nlp.vocab).from_bytes(doc.to_bytes(exclude=["user_hooks"])),
        next(DocBin().from_bytes(by_docbin).get_docs(nlp.vocab)),
    ):
        set_token_vectors(loaded)
        loaded._.elmo = None  # its hooks read its tensor now
        new = nlp(loaded[2:5].as_doc())
        assert new.user_hooks is not loaded.user_hooks and new.user_token_hooks is not loaded.user_token_hooks
        np.testing.assert_allclose(loaded.vector, vector, atol=ATOL)
        np.testing.assert_allclose(loaded[1].vector, token_vector, atol=ATOL)


def test_a_span_s_doc_without_elmo_s_tensor_says_it_has_no_layers_until_given_the_span_s_rows(make_nlp):
    nlp = make_nlp()
    doc = nlp.make_doc("Alice lives in Paris . Bob too .")
    doc.tensor = np.ones((len(doc), 16), dtype="float32")  # an earlier component's (e.g. tok2vec's), as wide
    doc = nlp.get_pipe("elmo")(doc)
    span = doc[2:5]
    new = span.as_doc(copy_user_data=True)
    with pytest.raises(ValueError, match=r"^the doc has no ELMo layers \(doc\._\.elmo\) nor ELMo token vectors"):
        new.vector
    new._.elmo = ElmoLayers.of(new, doc._.elmo.layers[:, span.start : span.end], doc._.elmo.component)
    np.testing.assert_array_equal(new.vector, span.vector)
    np.testing.assert_array_equal(new[0].vector, doc[2].vector)


def test_elmo_layers_of_rows_that_are_not_one_per_token_of_the_doc_are_refused_naming_their_shape(make_nlp):
    """Rows of another span than the doc's tokens, or a 2-D array, are refused at once (was: taken,
    to give an IndexError later, or a scalar as each token's vector)."""
    nlp = make_nlp()
    doc = nlp("The cat sat on the mat .")
    new = doc[2:6].as_doc()
    for rows, shape in [(doc._.elmo.layers[:, 2:5], (3, 3, 16)), (doc._.elmo.layers[0, 2:6], (4, 16))]:
        with pytest.raises(ValueError, match=re.escape(f"ElmoLayers.of: layers of shape {shape} for a doc of 4 tok")):
            ElmoLayers.of(new, rows, "elmo")


def test_vector_norm_is_the_norm_of_the_elmo_vector_even_when_read_before_the_elmo_component_ran(make_nlp):
    """spaCy caches a doc's ``vector_norm`` at its first reading (was: 0 for a doc read before the elmo
    component ran, and the span's norm for a ``span.as_doc()`` copy run again)."""
    nlp = make_nlp()
    doc = nlp.make_doc("The cat sat on the mat .")
    assert doc.vector_norm == 0
    nlp(doc)
    new = nlp(doc[2:5].as_doc())
    for piece in (doc, doc[1:4], new, new[0:2]):
        assert piece.vector_norm == pytest.approx(float(np.linalg.norm(piece.vector)), rel=1e-6)
        assert piece.vector_norm > 0


def test_similarity_is_the_cosine_of_the_elmo_vectors(make_nlp):
    nlp = make_nlp()
    one, two = nlp("he will stick to it"), nlp("a stick and a stone")
    assert one[2].similarity(two[1]) == pytest.approx(cosine(one[2].vector, two[1].vector), abs=1e-6)
    assert one.similarity(two) == pytest.approx(cosine(one.vector, two.vector), abs=1e-6)
    assert one[1:3].similarity(two[0:2]) == pytest.approx(cosine(one[1:3].vector, two[0:2].vector), abs=1e-6)
    assert one[2].similarity(one[2]) == pytest.approx(1.0, abs=1e-6)


def test_similarity_with_an_empty_or_whitespace_only_side_warns_w008_and_is_zero_as_spacy_s_own(make_nlp):
    """An empty or whitespace-only doc or span, or a whitespace token, has no vector: similarity is
    0.0 with spaCy's warning W008, as spaCy's own similarity gives (was: 0.0 without a word)."""
    nlp = make_nlp()
    doc, empty, blank = nlp("The cat sat ."), nlp(""), nlp("   ")
    pairs = [(doc, empty), (empty, doc), (doc, blank), (blank, blank), (doc[0:0], doc), (doc[0], blank[0])]
    for one, other in pairs:
        with pytest.warns(UserWarning, match=rf"\[W008\] Evaluating {type(one).__name__}.similarity based on empty"):
            assert one.similarity(other) == 0.0


@pytest.mark.parametrize("static_vectors", [False, True])
def test_similarity_with_a_lexeme_or_a_vector_of_another_width_is_refused_naming_it(make_nlp, static_vectors):
    """A Lexeme has no ELMo vector (no context), and a vector of another width is not ELMo's: one
    line says so (was: spaCy's E010 that the pipeline has no word vectors, or numpy's broadcast error)."""
    nlp = make_nlp(token_vectors=True)
    if static_vectors:
        nlp.vocab.set_vector("cat", np.ones(300, dtype="float32"))
    doc = nlp("The cat sat .")
    for one in (doc, doc[0:2], doc[1]):
        with pytest.raises(ValueError, match=rf"^{type(one).__name__}.similarity with a Lexeme: ELMo's vectors are "):
            one.similarity(nlp.vocab["cat"])

    class Static:  # what similarity reads of the other side: its vector
        vector = np.ones(300, dtype="float32")

    with pytest.raises(ValueError, match=r"^Doc.similarity of ELMo vectors of width 16 with a Static whose vector "):
        doc.similarity(Static())


def test_similarity_stays_within_minus_one_and_one(make_nlp):
    """A cosine is in [-1, 1]: a token, span or doc compared with itself gives at most 1.0, and with
    its negation at least -1.0 (was: the float32 sums gave up to 1.0000000607 for 7 of these 15
    tokens, so math.acos(similarity) failed)."""
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob hates London . Carol loves Berlin very much .")
    pieces = [*doc, doc[0:3], doc[4:9], doc]
    assert max(piece.similarity(piece) for piece in pieces) <= 1.0
    assert min(piece.similarity(piece) for piece in pieces) == pytest.approx(1.0, abs=1e-6)

    class Negated:  # what similarity reads of the other side: its vector
        def __init__(self, piece):
            self.vector = -piece.vector

    assert min(piece.similarity(Negated(piece)) for piece in pieces) >= -1.0


def test_whitespace_tokens_are_left_out_of_span_and_doc_vectors(make_nlp):
    nlp = make_nlp()
    doc = nlp(Doc(nlp.vocab, words=["Hello", "  ", "world"]))
    np.testing.assert_array_equal(doc[1].vector, 0.0)
    np.testing.assert_allclose(doc.vector, hf_elmo_vectors(["Hello", "world"]).mean(axis=0), atol=ATOL)
    np.testing.assert_array_equal(doc[1:2].vector, np.zeros(16, dtype="float32"))


def test_token_vectors_false_leaves_the_tensor_and_the_hooks_alone(make_nlp):
    doc = make_nlp(token_vectors=False)("The cat sat .")
    assert doc.tensor.size == 0 and not doc.user_hooks and not doc.user_token_hooks
    assert doc._.elmo.layers.shape == (3, 4, 16)


def test_by_default_static_vectors_win_and_token_vectors_true_overrides_them(make_nlp):
    nlp = make_nlp()
    nlp.vocab.set_vector("cat", np.ones(300, dtype="float32"))
    doc = nlp("The cat sat .")
    assert not nlp.get_pipe("elmo").sets_token_vectors
    np.testing.assert_array_equal(doc[1].vector, np.ones(300, dtype="float32"))
    forced = make_nlp(token_vectors=True)
    forced.vocab.set_vector("cat", np.ones(300, dtype="float32"))
    doc = forced("The cat sat .")
    np.testing.assert_allclose(doc[1].vector, hf_elmo_vectors(["The", "cat", "sat", "."])[1], atol=ATOL)


def test_the_tensor_survives_to_bytes_and_set_token_vectors_restores_the_hooks(make_nlp):
    nlp = make_nlp()
    doc = nlp("The cat sat on the mat .")
    copy = Doc(nlp.vocab).from_bytes(doc.to_bytes(exclude=["user_hooks"]))
    np.testing.assert_allclose(copy.tensor, doc.tensor, atol=0)
    assert not copy.user_token_hooks  # spaCy does not serialise hooks
    np.testing.assert_allclose(copy[1].vector, doc[1].vector, atol=0)  # no static vectors: doc.tensor

    (restored,) = DocBin(docs=[doc], store_user_data=True).get_docs(nlp.vocab)
    assert restored.tensor.size == 0  # DocBin keeps doc._.elmo, not the tensor
    set_token_vectors(restored)
    np.testing.assert_allclose(restored.tensor, doc.tensor, atol=0)
    assert restored[1].similarity(doc[1]) == pytest.approx(1.0, abs=1e-6)


def test_a_span_s_doc_does_not_read_a_later_component_s_tensor_even_as_wide_as_elmo_s(make_nlp):
    doc = make_nlp()("Alice lives in Paris . Bob too .")
    doc.tensor = np.ones_like(doc.tensor)  # e.g. a tok2vec after the elmo component, of ELMo's width
    new = doc[2:5].as_doc()
    with pytest.raises(ValueError, match="the doc has no ELMo layers"):
        new.vector
    np.testing.assert_allclose(doc[2:5].vector, hf_elmo_vectors([t.text for t in doc])[2:5].mean(axis=0), atol=ATOL)


def test_the_docs_of_two_spans_read_in_turn_are_each_checked_against_elmo_s_rows_once(make_nlp):
    from unittest import mock

    doc = make_nlp()("Alice lives in Paris . Bob too .")
    first, second = doc[0:3].as_doc(), doc[3:7].as_doc()
    with mock.patch.object(np, "flatnonzero", wraps=np.flatnonzero) as searches:
        for _ in range(3):
            np.testing.assert_allclose(first.vector, doc[0:3].vector, atol=ATOL)
            np.testing.assert_allclose(second[1].vector, doc[4].vector, atol=ATOL)
    assert searches.call_count == 2


def test_a_loaded_doc_whose_layers_were_dropped_gets_its_vectors_from_the_tensor_after_set_token_vectors(make_nlp):
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob too .")
    expected = hf_elmo_vectors([t.text for t in doc])
    doc._.elmo = None  # the README's way to keep only the vectors
    loaded = Doc(nlp.vocab).from_bytes(doc.to_bytes(exclude=["user_hooks"]))
    set_token_vectors(loaded)
    np.testing.assert_allclose(loaded[1].vector, expected[1], atol=ATOL)
    np.testing.assert_allclose(loaded[2:5].vector, expected[2:5].mean(axis=0), atol=ATOL)
    np.testing.assert_allclose(loaded[2:5].as_doc().vector, expected[2:5].mean(axis=0), atol=ATOL)


def test_a_span_s_doc_of_a_loaded_doc_reads_the_span_s_rows_after_set_token_vectors(make_nlp):
    nlp = make_nlp()
    doc = nlp("Alice lives in Paris . Bob too .")
    loaded = Doc(nlp.vocab).from_bytes(doc.to_bytes(exclude=["user_hooks"]))  # tensor and layers, no hooks
    set_token_vectors(loaded)
    np.testing.assert_allclose(loaded[2:5].as_doc().vector, doc[2:5].vector, atol=ATOL)
    np.testing.assert_allclose(loaded[2:5].as_doc()[1].vector, doc[3].vector, atol=ATOL)


def test_the_hooks_read_doc_elmo_so_a_later_tensor_does_not_change_them(make_nlp):
    doc = make_nlp()("The cat sat .")
    expected = hf_elmo_vectors(["The", "cat", "sat", "."])
    doc.tensor = np.zeros((len(doc), 5), dtype="float32")  # e.g. a tok2vec after the elmo component
    np.testing.assert_allclose(doc[1].vector, expected[1], atol=ATOL)
    np.testing.assert_allclose(doc.vector, expected.mean(axis=0), atol=ATOL)


def test_adding_elmo_to_a_pipeline_with_its_own_tok2vec_leaves_that_tok2vec_s_tensor_to_its_listeners(tiny_elmo_dir):
    """spaCy's tok2vec listeners read ``doc.tensor`` back at prediction: elmo must not replace it."""
    import spacy
    from spacy.training import Example

    from tests.spacy_elmo.pipeline_helpers import TRAIN_DATA, loader_settings

    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("ner")  # its default model listens to the tok2vec
    examples = [Example.from_dict(nlp.make_doc(t), {"entities": ents}) for t, ents, _ in TRAIN_DATA]
    nlp.initialize(lambda: examples)
    text = "Alice lives in Paris ."
    before = nlp(text)
    nlp.add_pipe("elmo", before="ner")
    loader = spacy.util.registry.resolve(loader_settings(tiny_elmo_dir))["loader"]
    nlp.get_pipe("elmo").initialize(lambda: examples, nlp=nlp, loader=loader)
    after = nlp(text)
    np.testing.assert_array_equal(after.tensor, before.tensor)  # the tok2vec's, 96 wide
    assert [(e.text, e.label_) for e in after.ents] == [(e.text, e.label_) for e in before.ents]
    np.testing.assert_allclose(after[0].vector, hf_elmo_vectors(text.split())[0], atol=ATOL)  # hooks: ELMo's


def test_layers_follow_a_merge_and_a_split_of_tokens(make_nlp):
    nlp = make_nlp()
    doc = nlp("I love New York City and NewYork .")
    before = doc._.elmo.layers.copy()  # tokens: I love New York City and NewYork .
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[2:5])
    with doc.retokenize() as retokenizer:
        retokenizer.split(doc[4], ["New", "York"], heads=[(doc[4], 1), doc[3]])
    assert [t.text for t in doc] == ["I", "love", "New York City", "and", "New", "York", "."]
    expected = np.stack(
        [
            before[:, 0],
            before[:, 1],
            before[:, 2:5].mean(axis=1),
            before[:, 5],
            before[:, 6],
            before[:, 6],
            before[:, 7],
        ],
        axis=1,
    )
    for token in doc:  # the token hook first: it realigns from any token
        np.testing.assert_allclose(token.vector, expected[:, token.i].mean(axis=0), atol=ATOL)
    np.testing.assert_array_equal(doc._.elmo.layers, expected)  # unchanged tokens' rows are copied exactly
    np.testing.assert_allclose(doc.vector, expected.mean(axis=(0, 1)), atol=ATOL)
    np.testing.assert_allclose(doc[2:4].vector, expected[:, 2:4].mean(axis=(0, 1)), atol=ATOL)


def test_merge_entities_after_elmo_gives_each_entity_the_mean_of_its_words(make_nlp):
    nlp = make_nlp()
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "GPE", "pattern": "New York City"}])
    nlp.add_pipe("merge_entities")
    doc = nlp("They moved to New York City last year .")
    alone = make_nlp()("They moved to New York City last year .")._.elmo.layers
    assert len(doc) == 7 and doc[3].text == "New York City"
    np.testing.assert_allclose(doc[3].vector, alone[:, 3:6].mean(axis=(0, 1)), atol=ATOL)
    np.testing.assert_allclose(doc[4].vector, alone[:, 6].mean(axis=0), atol=ATOL)


def test_layers_survive_doc_bin_with_the_spans_that_let_them_follow_retokenization(make_nlp):
    nlp = make_nlp()
    doc = nlp("New York is big .")
    again = list(DocBin(store_user_data=True, docs=[doc]).get_docs(nlp.vocab))[0]
    with again.retokenize() as retokenizer:
        retokenizer.merge(again[0:2])
    np.testing.assert_allclose(again._.elmo.layers[:, 0], doc._.elmo.layers[:, 0:2].mean(axis=1), atol=ATOL)
    assert again._.elmo.component == "elmo"


def test_layers_saved_without_spans_say_an_older_hf_elmo_saved_them_when_the_tokens_change(make_nlp):
    doc = make_nlp()("New York City is big")
    doc._.elmo = ElmoLayers(layers=doc._.elmo.layers, spans=None, component="elmo")  # as an older DocBin gives
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[0:3])
    with pytest.raises(ValueError) as info:
        doc._.elmo
    assert str(info.value) == (
        "doc._.elmo holds layers for 5 tokens but the doc has 3: its tokens changed after the elmo component ran, "
        "and these layers (saved by an older hf-elmo, which did not record the tokens' character spans) do not say "
        "which tokens they were; run the elmo component on the doc again"
    )


def test_whitespace_and_empty_docs_have_no_vector():
    from spacy.lang.en import English

    nlp = English()
    for text, has in (("", False), ("   ", False), ("a  b", True)):
        doc = nlp.make_doc(text)
        set_token_vectors_of_zeros(doc)
        assert doc.has_vector is has and doc[0 : len(doc)].has_vector is has
    assert [t.has_vector for t in doc] == [True, False, True]


def set_token_vectors_of_zeros(doc):
    from spacy_elmo.doc_layers import ElmoLayers

    doc._.elmo = ElmoLayers.of(doc, np.zeros((3, len(doc), 16), dtype="float32"), "elmo")
    set_token_vectors(doc)


def test_doc_and_span_vectors_of_a_long_doc_are_the_exact_mean():
    """They were averaged in one float32 pass, which drifted past 1e-5 of the mean on docs of
    thousands of tokens (5.7e-5 at 5,000); the sum is now taken in float64."""
    from spacy.lang.en import English

    from spacy_elmo.doc_layers import register_extension

    register_extension()
    doc = English().make_doc("word " * 5000)
    layers = np.random.default_rng(0).normal(3.0, 1.0, size=(3, len(doc), 16)).astype("float32")
    doc._.elmo = ElmoLayers.of(doc, layers, "elmo")
    set_token_vectors(doc)
    exact = layers.astype("float64").mean(axis=(0, 1))
    for vector in (doc.vector, doc[:].vector, doc[10:4000].vector):
        assert vector.dtype == np.float32
    np.testing.assert_allclose(doc.vector, exact, rtol=0, atol=1e-6)
    np.testing.assert_allclose(doc[:].vector, exact, rtol=0, atol=1e-6)
    np.testing.assert_allclose(
        doc[10:4000].vector, layers[:, 10:4000].astype("float64").mean(axis=(0, 1)), rtol=0, atol=1e-6
    )
