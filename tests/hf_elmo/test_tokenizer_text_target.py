"""ElmoTokenizer refuses a target text (``text_target``, ``text_pair_target``: what transformers' tokenizers
encode as ``labels`` for a decoder) in one line saying ELMo has none and what to pass (was Python's
"missing 1 required positional argument: 'text'", or "does not support ['text_target']")."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer


@pytest.mark.parametrize("name", ["text_target", "text_pair_target"])
@pytest.mark.parametrize("text", [None, "The cat sat."])
def test_a_target_text_is_refused_saying_elmo_has_no_decoder_and_what_to_pass(name, text):
    arguments = {name: "Le chat."} if text is None else {"text": text, name: "Le chat."}
    with pytest.raises(ValueError) as raised:
        ElmoTokenizer()(**arguments)
    assert str(raised.value) == (
        f"ElmoTokenizer takes no {name}: ELMo has no decoder to generate target text (a task model's labels are class "
        "ids, one a word or a sentence); encode the input text as tokenizer(text) and give the model its labels "
        "(labels=) beside it"
    )


def test_a_target_text_left_none_changes_nothing():
    tokenizer = ElmoTokenizer()
    assert tokenizer("The cat", text_target=None, text_pair_target=None) == tokenizer("The cat")


def test_no_text_at_all_says_what_to_pass():
    with pytest.raises(TypeError, match="^ElmoTokenizer takes a text \\(str\\) or a list of texts, .*got None$"):
        ElmoTokenizer()()
