"""``ElmoTokenizer.pad`` keeps the word numbering of the encodings it pads: after ``truncation_side="left"`` cut a
sentence's first words, ``word_ids`` still count them, as the tokenizer's call (and a fast tokenizer's call for the
same words) numbers them (was: renumbered from 0, so ``labels[word_id]`` picked the cut words' labels). A plain
dict from such a tokenizer does not say what was cut: a map that counts words is refused in one line."""

from __future__ import annotations

import pickle

import pytest

from hf_elmo import ElmoTokenizer
from tests.hf_elmo.test_tokenizer_encoding_maps import _fast

WORDS = [["The", "cat", "sat"], ["cat"]]
CUT = {"is_split_into_words": True, "truncation": True, "max_length": 2}


@pytest.mark.parametrize("return_tensors", [None, "pt", "np"])
def test_padded_encodings_number_their_words_as_the_padded_call_and_a_fast_tokenizer_do(return_tensors):
    tokenizer = ElmoTokenizer(truncation_side="left")
    padded = tokenizer.pad([tokenizer(words, **CUT) for words in WORDS], return_tensors=return_tensors)
    called = tokenizer(WORDS, padding=True, **CUT)
    fast = _fast("left")(WORDS, padding=True, **CUT)
    for b in range(2):
        assert padded.word_ids(b) == called.word_ids(b) == fast.word_ids(b)
    assert padded.word_ids(0) == [1, 2]
    assert padded.token_to_word(0, 0) == 1
    assert padded.word_to_tokens(0, 2).start == 1
    assert pickle.loads(pickle.dumps(padded)).word_ids(0) == [1, 2]


def test_a_batch_or_one_sentence_padded_whole_keeps_its_numbering():
    tokenizer = ElmoTokenizer(truncation_side="left")
    assert tokenizer.pad(tokenizer(WORDS, **CUT)).word_ids(0) == [1, 2]  # a dict of per-sentence lists
    alone = tokenizer.pad(tokenizer(WORDS[0], **CUT), padding="max_length", max_length=3)
    assert alone.word_ids() == [1, 2, None]


def test_plain_dicts_count_from_0_or_when_the_cut_is_unknown_a_map_of_words_is_refused_in_one_line():
    rows = [dict(ElmoTokenizer()(words, is_split_into_words=True)) for words in (["a", "b"], ["c"])]
    assert ElmoTokenizer().pad(rows).word_ids(1) == [0, None]
    padded = ElmoTokenizer(truncation_side="left").pad(rows)
    with pytest.raises(ValueError) as refused:
        padded.word_ids(1)
    assert str(refused.value) == (
        "word_ids(): pad got sentence 1 as a plain dict, so the words truncation_side='left' cut before it are "
        "unknown: pad the encodings the tokenizer's call returns (tokenizer.pad([tokenizer(text), ...]))"
    )
    with pytest.raises(ValueError, match=r"^token_to_word\(\): pad got sentence 0 as a plain dict"):
        padded.token_to_word(0, 0)
    assert padded.sequence_ids(1) == [0, None]  # what does not count words still answers
