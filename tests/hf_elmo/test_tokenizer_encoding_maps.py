"""An ``ElmoBatchEncoding`` answers the maps of a fast tokenizer's encoding (``tokens``, ``sequence_ids``,
``token_to_word``, ``word_to_tokens``, ``token_to_sequence``, ``token_to_chars``, ``char_to_token``,
``word_to_chars``, ``char_to_word``) as ``PreTrainedTokenizerFast`` answers them for the same words, one word a
token (was: transformers' "not available when using Python based tokenizers" for each), for texts and
pre-split words, padded or not, cut on either side; a question it cannot answer is refused in one line."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from transformers.tokenization_utils_base import CharSpan, TokenSpan

from hf_elmo import ElmoTokenizer

TEXTS = ["The cat  sat .", "The", ""]
WORDS = [["The", "cat", "sat"], ["cat"], []]


def _fast(truncation_side: str = "right") -> PreTrainedTokenizerFast:
    """A fast tokenizer that splits on whitespace, as ELMo's "whitespace" rule, with a token for each word."""
    vocab = {word: i for i, word in enumerate(["[PAD]", "[UNK]", "The", "cat", "sat", "."])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]", truncation_side=truncation_side
    )


def _answers(encoding: Any, rows: int) -> dict[str, Any]:
    """Every map's answer at each row and index (from 0 to past the longest text's end: the fast tokenizer
    takes no negative index)."""
    answers: dict[str, Any] = {}
    for b in range(rows):
        answers[f"tokens({b})"] = [t if t != "[PAD]" else "" for t in encoding.tokens(b)]
        answers[f"sequence_ids({b})"] = encoding.sequence_ids(b)
        answers[f"word_ids({b})"] = encoding.word_ids(b)
        for i in range(len(TEXTS[0]) + 2):
            for method in ("token_to_word", "token_to_sequence", "token_to_chars", "word_to_tokens"):
                answers[f"{method}({b}, {i})"] = getattr(encoding, method)(b, i)
            for method in ("char_to_token", "char_to_word"):
                answers[f"{method}({b}, {i})"] = getattr(encoding, method)(b, i)
            try:
                answers[f"word_to_chars({b}, {i})"] = encoding.word_to_chars(b, i)
            except (IndexError, TypeError):  # a word not kept: transformers' TypeError, a one-line IndexError here
                answers[f"word_to_chars({b}, {i})"] = "refused"
    return answers


@pytest.mark.parametrize("truncation_side", ["right", "left"])
@pytest.mark.parametrize(
    ("text", "split", "rows"), [(TEXTS, False, 3), (WORDS, True, 3), (TEXTS[0], False, 1), (WORDS[0], True, 1)], ids=str
)
@pytest.mark.parametrize(
    "options",
    [{}, {"padding": True}, {"padding": True, "return_tensors": "pt"}, {"truncation": True, "max_length": 2}],
    ids=str,
)
def test_each_map_answers_as_a_fast_tokenizers_for_the_same_words(text, split, rows, options, truncation_side):
    elmo = ElmoTokenizer(truncation_side=truncation_side)(text, is_split_into_words=split, **options)
    fast = _fast(truncation_side)(text, is_split_into_words=split, **options)
    assert _answers(elmo, rows) == _answers(fast, rows)


def test_the_answers_have_transformers_types():
    encoding = ElmoTokenizer()(["The cat", "sat"], padding=True)
    assert type(encoding.word_to_tokens(0, 1)) is TokenSpan
    assert type(encoding.token_to_chars(0, 1)) is CharSpan
    assert type(encoding.word_to_chars(0, 1)) is CharSpan
    assert encoding.word_to_chars(0, 1) == CharSpan(4, 7)
    assert encoding.token_to_chars(1, 1) is None  # padding
    assert encoding.is_fast is False


def test_one_sentence_takes_the_index_alone_as_transformers_reads_it():
    encoding = ElmoTokenizer()("The cat sat")
    assert encoding.tokens() == ["The", "cat", "sat"]
    assert encoding.token_to_word(2) == 2
    assert encoding.word_to_tokens(1) == TokenSpan(1, 2)
    assert encoding.token_to_chars(1) == CharSpan(4, 7)
    assert encoding.char_to_word(5) == 1
    assert encoding.char_to_token(3) is None  # a space
    assert encoding.word_to_chars(2) == CharSpan(8, 11)


def test_tokens_are_what_convert_ids_to_tokens_gives_for_the_rows():
    tokenizer = ElmoTokenizer()
    encoding = tokenizer(["The cat didn't sit .", "A"], padding=True)
    for b in range(2):
        assert encoding.tokens(b) == tokenizer.convert_ids_to_tokens(encoding["input_ids"][b])


def test_a_negative_token_index_counts_from_the_end_of_the_row():
    encoding = ElmoTokenizer()(["The cat sat", "A"], padding=True)
    assert encoding.token_to_word(0, -1) == 2
    assert encoding.token_to_chars(0, -3) == CharSpan(0, 3)
    assert encoding.token_to_word(1, -1) is None  # padding
    assert encoding.token_to_word(-1, 0) == 0  # the last sentence
    assert encoding.tokens(-1) == ["A", "", ""]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda e: e.word_to_chars(0, 5), "word_to_chars: sentence 0 has no word 5 (its encoding holds words 0 to 2)"),
        (lambda e: e.tokens(2), "batch index 2 is out of range: this encoding holds 2 sentence(s)"),
        (lambda e: e.token_to_word(-3, 0), "batch index -3 is out of range: this encoding holds 2 sentence(s)"),
        (lambda e: e.word_to_chars(1, 0), "word_to_chars: sentence 1 has no word 0 (its encoding holds no words)"),
    ],
)
def test_an_index_beyond_the_encoding_is_an_index_error_in_one_line(call, message):
    encoding = ElmoTokenizer()(["The cat sat", ""], padding=True)
    with pytest.raises(IndexError) as refused:
        call(encoding)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda e: e.word_to_tokens(0, -1), "word_to_tokens: word_index must be 0 or more, got -1"),
        (lambda e: e.char_to_word(0, -2), "char_to_word: char_index must be 0 or more, got -2"),
        (lambda e: e.char_to_token(-1), "char_to_token: char_index must be 0 or more, got -1"),
        (
            lambda e: e.word_to_chars(0, 0, sequence_index=1),
            "word_to_chars: ELMo encodes one sentence at a time (no pairs), so sequence_index must be 0, got 1",
        ),
    ],
)
def test_a_negative_word_or_char_index_or_a_second_sequence_is_refused_in_one_line(call, message):
    with pytest.raises(ValueError) as refused:
        call(ElmoTokenizer()(["The cat sat"]))
    assert str(refused.value) == message


def test_an_encoding_without_the_words_says_to_call_the_tokenizer_and_still_maps_positions():
    tokenizer = ElmoTokenizer()
    padded = tokenizer.pad([tokenizer("The cat"), tokenizer("sat")])
    with pytest.raises(ValueError) as refused:
        padded.token_to_chars(0, 1)
    assert str(refused.value) == (
        "token_to_chars() needs the words and their character spans, which only the tokenizer's call keeps (this "
        "encoding came from pad, prepare_for_model or a dict): call the tokenizer on the text"
    )
    with pytest.raises(ValueError, match=r"^tokens\(\) needs the words"):
        padded.tokens(1)
    assert padded.token_to_word(1, 0) == 0
    assert padded.token_to_word(1, 1) is None
    assert padded.word_to_tokens(0, 1) == TokenSpan(1, 2)
    assert padded.sequence_ids(1) == [0, None]


def test_a_pickled_encoding_keeps_the_words_and_their_spans():
    tokenizer = ElmoTokenizer(truncation_side="left")
    encoding = pickle.loads(pickle.dumps(tokenizer(["The cat sat"], truncation=True, max_length=2)))
    assert encoding.tokens(0) == ["cat", "sat"]
    assert encoding.word_to_chars(0, 2) == CharSpan(8, 11)
    assert encoding.char_to_word(0, 5) == 1
    assert encoding.char_to_word(0, 1) is None  # "The" was cut
