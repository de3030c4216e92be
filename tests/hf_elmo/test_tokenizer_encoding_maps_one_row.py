"""An ``ElmoBatchEncoding``'s maps (``word_ids``, ``token_to_word``, ...) make a list of the one row asked of a
tensor or NumPy mask, not of the whole batch (was: the (B, T) mask, again at each call, so asking a map position
by position over a batch took B times as long); one sentence's flat mask, a tensor too, is still read as one row."""

from __future__ import annotations

import numpy as np

from hf_elmo import ElmoTokenizer


class _Counted(np.ndarray):
    """A NumPy mask that records the shape of each array made a list."""

    listed: list[tuple[int, ...]] = []

    def tolist(self):  # type: ignore[override]
        _Counted.listed.append(self.shape)
        return super().tolist()


def test_a_map_makes_a_list_of_the_row_asked_only():
    encoding = ElmoTokenizer()(["a b c", "d"] * 4, padding=True, return_tensors="np")
    encoding["attention_mask"] = encoding["attention_mask"].view(_Counted)
    _Counted.listed.clear()
    assert encoding.token_to_word(1, 0) == 0
    assert encoding.word_ids(7) == [0, None, None]
    assert _Counted.listed == [(3,), (3,)]


def test_one_sentences_flat_tensor_mask_is_one_row():
    tokenizer = ElmoTokenizer()
    encoding = tokenizer.prepare_for_model(tokenizer.convert_tokens_to_ids(["a", "b"]), return_tensors="pt")
    assert encoding["attention_mask"].ndim == 1
    assert encoding.word_ids() == [0, 1]
    assert encoding.token_to_word(1) == 1
    assert encoding.word_to_tokens(1).start == 1
