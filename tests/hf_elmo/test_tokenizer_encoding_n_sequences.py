"""The tokenizer's call gives ``n_sequences`` 1, as a fast tokenizer's call does (ELMo encodes one sentence at a
time; was: ``None``, unknown), and a pickled encoding keeps it (transformers' own loses it: reading it then is an
``AttributeError``)."""

from __future__ import annotations

import pickle

from hf_elmo import ElmoTokenizer


def test_the_call_gives_one_sequence_a_sample():
    tokenizer = ElmoTokenizer()
    assert tokenizer("The cat").n_sequences == 1
    assert tokenizer([["The"], ["cat", "sat"]], is_split_into_words=True, padding=True).n_sequences == 1


def test_a_pickled_encoding_keeps_it():
    encoding = ElmoTokenizer()(["The cat", "sat"], padding=True, return_tensors="pt")
    assert pickle.loads(pickle.dumps(encoding)).n_sequences == 1


def test_pad_leaves_it_unknown_as_transformers_pad_does():
    tokenizer = ElmoTokenizer()
    assert tokenizer.pad([tokenizer("The cat"), tokenizer("sat")]).n_sequences is None
