"""A batch is a list or tuple, as transformers' tokenizers take one; another iterable (an iterator, a NumPy array of
texts) is refused in one line saying to pass list(texts). Was: taken as a batch, so that a pipeline, which passes an
iterator whole as one input, failed on padding or gave one batched result for all its texts; a generator, which the
pipeline reads text by text, gives one result per text."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from transformers import pipeline

from hf_elmo import ElmoTokenizer
from hf_elmo.pretrained import DEFAULT_MODEL

TAKES = (
    "ElmoTokenizer takes a text (str) or a list of texts, or with is_split_into_words=True a list of words or a list "
    "of such lists, got {said}; pass list(texts): a batch is a list or tuple, as in transformers (a "
    "pipeline reads a generator text by text, and passes another iterable whole, as one input)"
)


@pytest.fixture(scope="module")
def extractor():
    return pipeline("feature-extraction", model=str(DEFAULT_MODEL))


@pytest.mark.parametrize("texts", [["a b", "c"], ["a b", "c d"]], ids=["lengths differ", "equal lengths"])
def test_a_pipeline_given_an_iterator_of_texts_is_refused_in_one_line_saying_to_pass_a_list(extractor, texts):
    with pytest.raises(TypeError, match=f"^{re.escape(TAKES.format(said='a value of type list_iterator'))}$"):
        extractor(iter(texts), batch_size=2)


def test_a_pipeline_given_a_generator_or_a_list_of_texts_gives_one_result_per_text(extractor):
    texts = ["The cat sat .", "Hi !", "A dog"]
    alone = [torch.tensor(extractor(text)) for text in texts]  # (1, T, 2P)
    for given in (list(texts), (text for text in texts)):
        results = list(extractor(given, batch_size=2))
        assert len(results) == len(texts)
        for vectors, expected in zip(results, alone):
            vectors = torch.tensor(vectors)  # (1, T_longest of its batch, 2P): padding rows are zero
            torch.testing.assert_close(vectors[:, : expected.shape[1]], expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize(
    "batch, said",
    [
        (lambda: iter(["a b", "c"]), "a value of type list_iterator"),
        (lambda: (text for text in ["a b", "c"]), "a value of type generator"),
        (lambda: np.array(["a b", "c"]), "the ndarray array(['a b', 'c'], dtype='<U3')"),
    ],
)
def test_the_tokenizer_refuses_another_iterable_than_a_list_or_tuple_in_one_line(batch, said, split):
    with pytest.raises(TypeError, match=f"^{re.escape(TAKES.format(said=said))}$"):
        ElmoTokenizer()(batch(), is_split_into_words=split)


def test_a_generator_of_pre_split_sentences_is_refused_alike():
    """Was: "object of type 'generator' has no len()"."""
    with pytest.raises(TypeError, match=f"^{re.escape(TAKES.format(said='a value of type generator'))}$"):
        ElmoTokenizer()((text.split() for text in ["a b", "c"]), is_split_into_words=True)


def test_lists_and_tuples_of_texts_or_of_words_are_batches():
    tokenizer = ElmoTokenizer()
    expected = tokenizer(["a b", "c"])["input_ids"]
    assert tokenizer(("a b", "c"))["input_ids"] == expected
    assert tokenizer((["a", "b"], ("c",)), is_split_into_words=True)["input_ids"] == expected
