"""decode of a batch whose sentences all have no words (``tokenizer(["", ""])``'s input_ids: ``[[], []]``, or a
(B, 0, W) tensor or array) is a list of one empty text a sentence, as for any other batch and as a fast tokenizer's
decode of ``[[], []]`` gives (was the one str ``""``); convert_ids_to_tokens refuses it as the batch it is."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer
from tests.hf_elmo.test_tokenizer_encoding_maps import _fast


@pytest.mark.parametrize("return_tensors", [None, "pt", "np"])
@pytest.mark.parametrize("texts", [["", ""], [""]], ids=len)
def test_a_batch_of_sentences_without_words_decodes_to_a_text_each(texts, return_tensors):
    tokenizer = ElmoTokenizer()
    ids = tokenizer(texts, padding=True, return_tensors=return_tensors)["input_ids"]
    assert tokenizer.decode(ids) == tokenizer.batch_decode(ids) == [""] * len(texts)
    assert tokenizer.decode(ids) == _fast().decode([[]] * len(texts))
    with pytest.raises(ValueError, match=r"^convert_ids_to_tokens takes one word's char ids \(W,\) or one sentence's"):
        tokenizer.convert_ids_to_tokens(ids)


def test_one_sentence_without_words_still_decodes_to_one_text():
    tokenizer = ElmoTokenizer()
    assert tokenizer.decode(tokenizer("")["input_ids"]) == ""
    assert tokenizer.decode(tokenizer("", return_tensors="pt")["input_ids"][0]) == ""
    assert tokenizer.convert_ids_to_tokens(tokenizer("")["input_ids"]) == []
