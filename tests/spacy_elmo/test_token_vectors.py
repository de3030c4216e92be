"""``token.vector``, ``span.vector``, ``doc.vector`` and ``similarity`` from ELMo: the average of
the biLM layers (``hf_elmo.ScalarMix`` at its start), on by default without static vectors."""

import numpy as np
import pytest
import torch
from spacy.tokens import Doc, DocBin

from hf_elmo import ScalarMix, batch_to_ids
from spacy_elmo import set_token_vectors
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


def test_similarity_is_the_cosine_of_the_elmo_vectors(make_nlp):
    nlp = make_nlp()
    one, two = nlp("he will stick to it"), nlp("a stick and a stone")
    assert one[2].similarity(two[1]) == pytest.approx(cosine(one[2].vector, two[1].vector), abs=1e-6)
    assert one.similarity(two) == pytest.approx(cosine(one.vector, two.vector), abs=1e-6)
    assert one[1:3].similarity(two[0:2]) == pytest.approx(cosine(one[1:3].vector, two[0:2].vector), abs=1e-6)
    assert one[2].similarity(one[2]) == pytest.approx(1.0, abs=1e-6)


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
