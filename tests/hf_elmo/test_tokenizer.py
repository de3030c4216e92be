"""Character ids and the ElmoTokenizer."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest
import torch

from hf_elmo import ElmoConfig, ElmoTokenizer, batch_to_ids, char_ids, tokenization_elmo, word_splitting
from hf_elmo.char_ids import (
    add_sentence_markers,
    begin_of_sentence_ids,
    end_of_sentence_ids,
    token_to_char_ids,
)


def test_token_ids_are_shifted_utf8_bytes_wrapped_in_word_markers():
    ids = token_to_char_ids("añ")
    assert ids[:5] == [259, ord("a") + 1, 0xC3 + 1, 0xB1 + 1, 260]
    assert ids[5:] == [261] * 45 and len(ids) == 50


def test_sentence_markers_are_whole_tokens():
    assert begin_of_sentence_ids()[:4] == [259, 257, 260, 261]
    assert end_of_sentence_ids()[:4] == [259, 258, 260, 261]


@pytest.mark.parametrize("width", [50, 12])
def test_literal_sentence_marker_words_get_the_marker_char_ids_as_in_allennlp(width):
    # AllenNLP's ELMoCharacterMapper.convert_word_to_char_ids and bilm-tf's UnicodeCharsVocabulary:
    # the word "<S>" ("</S>") is begin-of-word, char 256 (257), end-of-word, then padding; all +1.
    def rule(char):
        return [258 + 1, char + 1, 259 + 1] + [260 + 1] * (width - 3)

    assert token_to_char_ids("<S>", width) == rule(256)
    assert token_to_char_ids("</S>", width) == rule(257)
    ids = batch_to_ids([["<S>", "a", "</S>"]], width)
    assert ids[0, 0].tolist() == rule(256) and ids[0, 2].tolist() == rule(257)
    tokenizer = ElmoTokenizer(max_characters_per_token=width)
    encoded = tokenizer(["<S>", "a", "</S>"], is_split_into_words=True, return_tensors="pt")["input_ids"]
    assert torch.equal(encoded, ids)
    # only the exact strings: anything else is its bytes
    for word in ("<s>", "<S>x", "</S>!"):
        assert token_to_char_ids(word, width)[1:4] == [b + 1 for b in word.encode()[:3]]


def test_a_literal_sentence_marker_word_reads_as_the_models_own_marker(allennlp_model):
    words = [["<S>", "hello", "</S>", "world"]]
    ids = batch_to_ids(words)
    with torch.no_grad():
        out = allennlp_model(input_ids=ids)
        layers, _ = allennlp_model.encode(add_sentence_markers(ids, torch.tensor([4])), torch.tensor([6]))
    # token layer of the literal words = that of the markers the model adds around the sentence
    torch.testing.assert_close(out.hidden_states[0][0, 0], layers[0][0, 0], rtol=0, atol=1e-6)
    torch.testing.assert_close(out.hidden_states[0][0, 2], layers[0][0, 5], rtol=0, atol=1e-6)


def test_long_tokens_are_cut_at_48_bytes_even_mid_character():
    ids = token_to_char_ids("東" * 20)  # 60 bytes
    assert ids[0] == 259 and ids[49] == 260
    assert ids[1:49] == [b + 1 for b in ("東" * 20).encode("utf-8")[:48]]


def test_a_token_that_encodes_to_nothing_still_gets_word_markers():
    assert token_to_char_ids("")[:3] == [259, 260, 261]


def test_batch_is_padded_with_all_zero_tokens():
    ids = batch_to_ids([["a", "b", "c"], ["d"]])
    assert ids.shape == (2, 3, 50) and ids.dtype == torch.long
    assert not ids[1, 1:].any() and ids[1, 0].all()


def test_tokenizer_splits_raw_strings_on_whitespace_and_returns_a_mask():
    tokenizer = ElmoTokenizer()
    encoded = tokenizer(["The cat  sat", "Hi"], padding=True, return_tensors="pt")
    assert encoded["input_ids"].shape == (2, 3, 50)
    assert encoded["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert torch.equal(encoded["input_ids"], batch_to_ids([["The", "cat", "sat"], ["Hi"]]))


def test_tokenizer_takes_pretokenised_words_single_or_batched():
    tokenizer = ElmoTokenizer()
    single = tokenizer(["York", "is"], is_split_into_words=True)
    assert len(single["input_ids"]) == 2 and single["attention_mask"] == [1, 1]
    batch = tokenizer([["York"], ["a", "b"]], is_split_into_words=True, padding=True, return_tensors="pt")
    assert batch["input_ids"].shape == (2, 2, 50)


def test_an_empty_text_in_a_batch_is_a_row_without_words_as_transformers_tokenizers_accept_it():
    """Was "sentence 1 of the batch is empty"; BERT's tokenizers encode "" too."""
    tokenizer = ElmoTokenizer()
    encoded = tokenizer(
        ["The cat", "", " "],
        padding=True,
        return_tensors="pt",
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
        return_length=True,
    )
    assert encoded["input_ids"].shape == (3, 2, 50) and not encoded["input_ids"][1:].any()
    assert encoded["attention_mask"].tolist() == [[1, 1], [0, 0], [0, 0]]
    assert encoded["special_tokens_mask"].tolist() == [[0, 0], [1, 1], [1, 1]]
    assert encoded["offset_mapping"][1].tolist() == [[0, 0], [0, 0]] and encoded["length"].tolist() == [2, 0, 0]
    assert encoded.word_ids(0) == [0, 1] and encoded.word_ids(1) == [None, None]
    assert tokenizer(["a", ""], padding=True)["attention_mask"] == [[1], [0]]
    words = tokenizer([["a"], []], is_split_into_words=True, padding=True, return_tensors="pt")
    assert words["attention_mask"].tolist() == [[1], [0]]


def test_a_batch_of_only_empty_texts_has_no_positions():
    tokenizer = ElmoTokenizer()
    encoded = tokenizer(["", ""], return_tensors="pt")
    assert encoded["input_ids"].shape == (2, 0, 50) and encoded["attention_mask"].shape == (2, 0)
    assert tokenizer("") == {"input_ids": [], "attention_mask": []}
    padded = tokenizer.pad([tokenizer(""), tokenizer("")], return_tensors="pt")
    assert padded["input_ids"].shape == (2, 0, 50) and padded["attention_mask"].shape == (2, 0)
    assert tokenizer.pad([tokenizer(""), tokenizer("a b")], return_tensors="pt")["attention_mask"].tolist() == [
        [0, 0],
        [1, 1],
    ]


@pytest.mark.parametrize(
    "words, message",
    [
        (["a", ""], r"^is_split_into_words=True: sentence 0, word 1 \(''\) is empty or holds whitespace"),
        ([["a"], ["New York"]], r"^is_split_into_words=True: sentence 1, word 0 \('New York'\) is empty or holds"),
        ([["a", "b\n"]], r"^is_split_into_words=True: sentence 0, word 1 \('b\\n'\) is empty or holds"),
    ],
    ids=["empty", "space", "newline"],
)
def test_pre_split_words_that_are_empty_or_hold_whitespace_are_refused(words, message):
    with pytest.raises(ValueError, match=message):
        ElmoTokenizer()(words, is_split_into_words=True)


@pytest.mark.parametrize(
    "words, message",
    [
        ([["a", 1]], r"^is_split_into_words=True: sentence 0, word 1 is the int 1, not a str; pass each word"),
        ([["a", None]], r"^is_split_into_words=True: sentence 0, word 1 is None, not a str"),
        ([b"a", b"b"], r"^is_split_into_words=True: sentence 0 of the batch is the bytes b'a', not a list of words"),
        ([1, 2], r"^is_split_into_words=True: sentence 0 of the batch is the int 1, not a list of words"),
    ],
    ids=["int", "none", "bytes", "ints-as-sentences"],
)
def test_pre_split_words_that_are_not_strings_are_refused_naming_their_position(words, message):
    """Each was a bare TypeError from deep inside ("object of type 'int' has no len()")."""
    with pytest.raises(TypeError, match=message):
        ElmoTokenizer()(words, is_split_into_words=True)


@pytest.mark.parametrize(
    "sentences, message",
    [
        ([], "empty batch"),
        ([["a"], []], "sentence 1 of the batch is empty"),
        ([["ok", "x" * 500]], "sentence 0, token 1: token of 500 characters"),
        ([["bad\udcff"]], "lone surrogate"),
    ],
)
def test_bad_input_gets_an_error_that_names_the_problem(sentences, message):
    with pytest.raises(ValueError, match=message):
        batch_to_ids(sentences)


def test_long_token_limit_can_be_lifted_to_truncate_like_the_original():
    ids = batch_to_ids([["x" * 500]], max_token_chars=None)
    assert ids[0, 0, 1:49].tolist() == [ord("x") + 1] * 48


def test_batch_to_ids_gives_int64_ids_from_a_memo_of_int16_rows():
    """The memo of a token's row (up to 65,536 tokens) holds 2 bytes an id, not 8 (was int64: ~42 MiB full);
    the ids out are int64, those of token_to_char_ids."""
    tokens = ["añ", "The", "\U0001f600", "x" * 60, "<S>"]
    ids = batch_to_ids([tokens])
    assert ids.dtype == torch.int64
    assert ids[0].tolist() == [token_to_char_ids(token) for token in tokens]
    row = char_ids._char_id_row("añ", 50, char_ids.DEFAULT_MAX_TOKEN_CHARS)
    assert row.dtype == np.int16 and row.nbytes == 100 and not row.flags.writeable
    assert row.tolist() == token_to_char_ids("añ")


def test_the_char_id_memo_when_full_takes_the_23_mib_the_readme_says():
    """README: 23 MiB for 65,536 tokens, the memo's bookkeeping included, not the token strings (which exist
    before it): measured here per token over 4,096 of them, within 10%."""
    import tracemalloc

    tokens = [f"word{i}" for i in range(4096)]
    char_ids._char_id_row.cache_clear()
    tracemalloc.start()
    try:
        for token in tokens:
            char_ids._char_id_row(token, 50, char_ids.DEFAULT_MAX_TOKEN_CHARS)
        traced, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        char_ids._char_id_row.cache_clear()
    assert char_ids._char_id_row.cache_info().maxsize == 65536
    full_mib = traced / len(tokens) * 65536 / 2**20
    assert abs(full_mib - 23) < 2.3, full_mib


def test_a_flat_list_of_words_is_refused_by_batch_to_ids():
    with pytest.raises(TypeError, match="list of token lists"):
        batch_to_ids(["Hello", "world"])


def test_batch_to_ids_takes_any_iterable_of_sentences_as_allennlps_does():
    """batch_to_ids(line.split() for line in lines), and a sentence as a generator or tuple: AllenNLP's
    iterates them. Was: "object of type 'generator' has no len()" (and 'map')."""
    want = batch_to_ids([["a", "b"], ["c"]])
    assert torch.equal(batch_to_ids(line.split() for line in ["a b", "c"]), want)
    assert torch.equal(batch_to_ids(map(str.split, ["a b", "c"])), want)
    assert torch.equal(batch_to_ids([(w for w in ["a", "b"]), ("c",)]), want)


@pytest.mark.parametrize(
    "sentences, message",
    [
        ([["a"], "bc"], r"^sentence 1 of the batch is the str 'bc', not a list of words$"),
        ([["a"], None], r"^sentence 1 of the batch is None, not a list of words$"),
        ([["a"], b"bc"], r"^sentence 1 of the batch is the bytes b'bc', not a list of words$"),
        ([["a", 7]], r"^sentence 0, token 1: tokens must be str, got the int 7$"),
    ],
    ids=["str", "none", "bytes", "int-token"],
)
def test_batch_to_ids_names_a_sentence_that_is_no_list_of_words_and_a_token_that_is_no_str(sentences, message):
    """A str sentence after the first was read as one-character tokens, silently ('bc' -> 'b', 'c');
    None was "object of type 'NoneType' has no len()"; a token that is no str was not placed."""
    with pytest.raises(TypeError, match=message):
        batch_to_ids(sentences)


# -- pre-tokenisation, word ids, offsets, decoding ----------------------------------------------
SENTENCE = "The cat sat on the mat."


def test_raw_text_is_split_on_whitespace_by_default_as_the_original_models_were_trained():
    assert ElmoTokenizer().tokenize(SENTENCE) == ["The", "cat", "sat", "on", "the", "mat."]


def test_the_shipped_model_splits_raw_text_with_spacys_english_rules_it_was_trained_on():
    from transformers import AutoTokenizer

    from hf_elmo.pretrained import DEFAULT_MODEL

    tokenizer = AutoTokenizer.from_pretrained(DEFAULT_MODEL)
    assert tokenizer.pre_tokenizer == "spacy:en"
    assert tokenizer.tokenize("The cat didn't sit.") == ["The", "cat", "did", "n't", "sit", "."]


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "spacy:en"])
def test_numpy_strings_are_split_as_the_same_str_as_transformers_tokenizers_take_them(pre_tokenizer):
    """np.array(texts) holds numpy.str_, a str subclass, which spaCy's tokenizer alone refused."""
    tokenizer = ElmoTokenizer(pre_tokenizer=pre_tokenizer)
    texts = ["The cat didn't sit.", "Hi"]
    expected = tokenizer(texts, return_offsets_mapping=True)
    assert tokenizer(list(np.array(texts)), return_offsets_mapping=True) == expected
    assert tokenizer(np.str_(texts[0]), return_offsets_mapping=True) == tokenizer(texts[0], return_offsets_mapping=True)


def test_the_pre_tokenizer_is_saved_and_loaded_with_the_tokenizer(tmp_path):
    from transformers import AutoTokenizer

    ElmoTokenizer(pre_tokenizer="spacy").save_pretrained(tmp_path)
    loaded = AutoTokenizer.from_pretrained(tmp_path)
    assert isinstance(loaded, ElmoTokenizer) and loaded.pre_tokenizer == "spacy:en"
    assert loaded(SENTENCE)["attention_mask"] == [1] * 7


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("max_token_chars", -1, "must be a positive integer, or None (null) for no limit, got the int -1"),
        ("max_token_chars", 0, "must be a positive integer, or None (null) for no limit, got the int 0"),
        ("max_token_chars", "abc", "must be a positive integer, or None (null) for no limit, got the str 'abc'"),
        ("max_token_chars", 100.5, "must be a positive integer, or None (null) for no limit, got the float 100.5"),
        ("max_characters_per_token", 10**9, "must be in 3..256, got 1000000000"),
    ],
)
def test_a_tokenizer_config_with_a_bad_setting_is_refused_at_load_naming_the_file_and_field(
    field, value, problem, tmp_path
):
    """Was: max_token_chars -1 or 0 loaded and refused every token later, 'abc' was a TypeError at the
    first call; a bad width was named without its file."""
    import json

    ElmoTokenizer().save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "tokenizer_config.json").read_text())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({**saved, field: value}))
    with pytest.raises(ValueError) as caught:
        ElmoTokenizer.from_pretrained(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'tokenizer_config.json'}: field {field} {problem}"
    with pytest.raises(ValueError, match=f"^from_pretrained argument {field} "):
        ElmoTokenizer.from_pretrained(tmp_path, **{field: value})


@pytest.mark.parametrize("filename", ["tokenizer_config.json", "config.json"])
@pytest.mark.parametrize(
    "content, why",
    [
        (b'{"max_token_chars": 100,', "Expecting"),  # cut short
        (b"[1, 2]", "(it holds the list [1, 2])"),
        (b'{"pre_tokenizer": "\xff"}', "'utf-8' codec can't decode byte 0xff"),
    ],
)
def test_a_damaged_tokenizer_or_model_config_is_one_error_naming_the_file(filename, content, why, tmp_path):
    """A tokenizer_config.json or config.json that is not a JSON object (cut short, a list, not
    UTF-8) is a ValueError naming the file and what to do. Was: json's bare 'Expecting property
    name enclosed in double quotes: line 1 column 2 (char 1)' (naming no file, e.g. from `elmo embed`),
    a TypeError from transformers for a list, a UnicodeDecodeError."""
    ElmoTokenizer().save_pretrained(tmp_path)
    (tmp_path / filename).write_bytes(content)
    with pytest.raises(ValueError) as caught:
        ElmoTokenizer.from_pretrained(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / filename} is not a JSON object of settings (") and why in message
    assert message.endswith("; restore it, or write the folder again with save_pretrained")
    assert "\n" not in message


@pytest.mark.parametrize(
    "marked", [["tokenizer_config.json"], ["config.json"], ["config.json", "tokenizer_config.json"]]
)
def test_tokenizer_and_model_configs_with_a_utf8_byte_order_mark_load_as_without(marked, tmp_path):
    """As Windows editors save UTF-8. Was: refused as "not a JSON object of settings (Unexpected UTF-8 BOM ...)"."""
    from hf_elmo.pretrained import DEFAULT_MODEL as shipped

    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("config.json", "tokenizer_config.json"):
        content = (shipped / name).read_bytes()
        (folder / name).write_bytes(b"\xef\xbb\xbf" + content if name in marked else content)
    if "tokenizer_config.json" not in marked:
        (folder / "tokenizer_config.json").unlink()  # the tokenizer's settings come from config.json
    tokenizer = ElmoTokenizer.from_pretrained(folder)
    assert tokenizer.pre_tokenizer == "spacy:en" and tokenizer.name_or_path == str(folder)
    assert ElmoConfig.from_pretrained(folder).pre_tokenizer == "spacy:en"


def test_an_integral_float_max_token_chars_is_taken_as_the_int_as_the_config_takes_its_sizes(tmp_path):
    """One rule for integer settings (``configuration_elmo.check_integer``): 100.0 (a hand-edited JSON)
    is 100, as ElmoConfig's sizes are; 100.5 is refused (above). Was: refused by the tokenizer alone."""
    import json

    ElmoTokenizer().save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "tokenizer_config.json").read_text())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({**saved, "max_token_chars": 7.0}))
    loaded = ElmoTokenizer.from_pretrained(tmp_path)
    assert loaded.max_token_chars == 7 and type(loaded.max_token_chars) is int
    with pytest.raises(ValueError, match="max_token_chars=7"):
        loaded("a nationalisation")


def test_an_unknown_pre_tokenizer_is_refused():
    with pytest.raises(ValueError, match="pre_tokenizer must be 'whitespace' or 'spacy:LANG'"):
        ElmoTokenizer(pre_tokenizer="moses")


def test_a_language_spacy_does_not_know_is_a_one_line_error_naming_it():
    with pytest.raises(ValueError, match=r"^pre_tokenizer 'spacy:klingon': spaCy has no language 'klingon'; use"):
        ElmoTokenizer(pre_tokenizer="spacy:klingon")(SENTENCE)


def test_a_missing_spacy_is_a_clear_error_only_when_the_tokenizer_needs_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "spacy", None)  # import spacy now fails
    word_splitting._spacy_tokenizer.cache_clear()
    try:
        tokenizer = ElmoTokenizer(pre_tokenizer="spacy:en")
        assert tokenizer(["mat", "."], is_split_into_words=True)["attention_mask"] == [1, 1]
        with pytest.raises(ImportError, match="spaCy is not installed: pip install"):
            tokenizer(SENTENCE)
    finally:
        word_splitting._spacy_tokenizer.cache_clear()


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "spacy:en"])
def test_offsets_are_each_words_span_in_its_text_and_word_ids_number_the_words(pre_tokenizer):
    tokenizer = ElmoTokenizer(pre_tokenizer=pre_tokenizer)
    texts = ["  The cat\tsat on the mat.", "Hi!"]
    encoded = tokenizer(texts, padding=True, return_offsets_mapping=True, return_tensors="pt")
    words = [tokenizer.tokenize(t) for t in texts]
    for row, (text, row_words) in enumerate(zip(texts, words)):
        spans = encoded["offset_mapping"][row].tolist()
        assert [text[s:e] for s, e in spans[: len(row_words)]] == row_words
        assert spans[len(row_words) :] == [[0, 0]] * (encoded["input_ids"].shape[1] - len(row_words))
        assert encoded.word_ids(row) == list(range(len(row_words))) + [None] * (len(spans) - len(row_words))
    assert torch.equal(encoded["input_ids"], batch_to_ids(words))


def test_offsets_of_pre_split_words_are_within_each_word_as_in_transformers():
    encoded = ElmoTokenizer()(
        ["New", "York"], is_split_into_words=True, return_offsets_mapping=True, return_special_tokens_mask=True
    )
    assert encoded["offset_mapping"] == [(0, 3), (0, 4)]
    assert encoded["special_tokens_mask"] == [0, 0] and encoded.word_ids() == [0, 1]


def test_padding_positions_are_special_tokens():
    tokenizer = ElmoTokenizer()
    encoded = tokenizer(["a b c", "d"], padding=True, return_special_tokens_mask=True)
    assert encoded["special_tokens_mask"] == [[0, 0, 0], [0, 1, 1]]
    for ids, mask in zip(encoded["input_ids"], encoded["special_tokens_mask"]):  # what data collators ask for
        assert tokenizer.get_special_tokens_mask(ids, already_has_special_tokens=True) == mask
        assert tokenizer.get_special_tokens_mask(torch.tensor(ids)) == mask


def test_truncation_keeps_the_first_max_length_words_or_the_last_with_truncation_side_left():
    encoded = ElmoTokenizer()(
        ["a b c d", "e"], padding=True, truncation=True, max_length=2, return_offsets_mapping=True
    )
    assert encoded["attention_mask"] == [[1, 1], [1, 0]] and encoded["offset_mapping"][0] == [(0, 1), (2, 3)]
    tokenizer = ElmoTokenizer(truncation_side="left")
    encoded = tokenizer(["a b c d", "e"], padding=True, truncation=True, max_length=2, return_offsets_mapping=True)
    assert encoded["offset_mapping"] == [[(4, 5), (6, 7)], [(0, 1), (0, 0)]]
    assert tokenizer.decode(encoded["input_ids"][0]) == "c d"


def test_max_length_without_truncation_or_padding_cuts_with_a_warning_as_in_transformers(caplog):
    """A stock tokenizer truncates there (with a warning): dataset.map(tok(x, max_length=128)) means it."""
    tokenizer = ElmoTokenizer()
    type(tokenization_elmo._logger).warning_once.cache_clear()  # an earlier call may have warned once
    with caplog.at_level("WARNING"):
        assert [len(ids) for ids in tokenizer(["a b c d", "e"], max_length=2)["input_ids"]] == [2, 1]
    assert any("max_length is given without truncation" in record.getMessage() for record in caplog.records)
    assert [len(ids) for ids in tokenizer(["a b c d", "e"], max_length=2, truncation=False)["input_ids"]] == [4, 1]


@pytest.mark.parametrize(
    "options, steps",
    [
        ({"padding": True}, 3),
        ({"padding": "longest"}, 3),
        ({"padding": "max_length", "max_length": 5}, 5),
        ({"padding": "max_length", "max_length": 2}, 3),  # max_length pads, it does not cut
        ({"padding": True, "pad_to_multiple_of": 4}, 4),
        ({"padding": "max_length", "max_length": 5, "pad_to_multiple_of": 4}, 8),
    ],
)
def test_padding_options_set_the_batch_length_as_in_transformers_and_as_pad_does(options, steps):
    tokenizer = ElmoTokenizer()
    encoded = tokenizer(["a b c", "d"], return_tensors="pt", **options)
    assert encoded["input_ids"].shape == (2, steps, 50)
    assert encoded["attention_mask"].tolist() == [[1, 1, 1] + [0] * (steps - 3), [1] + [0] * (steps - 1)]
    assert not encoded["input_ids"][:, 3:].any() and not encoded["input_ids"][1, 1:].any()
    single = [tokenizer(text) for text in ("a b c", "d")]
    padded = tokenizer.pad(single, return_tensors="pt", **options)
    assert torch.equal(padded["input_ids"], encoded["input_ids"])


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda t: t(["a"], padding_side="left"),
            "pads on the right only: padding_side must be 'right', got the str 'left'",
        ),
        (lambda t: t.pad([t("a")], padding_side="left"), "pads on the right only"),
        (lambda t: ElmoTokenizer(padding_side="left"), "pads on the right only"),
        (lambda t: t("a b", padding="max_length"), r"padding='max_length' needs max_length=N"),
        (lambda t: t("a b", padding="sideways"), "padding must be True, False, 'longest'"),
        (lambda t: t("a b", "c d"), "encodes single sentences .ELMo has no sentence pairs."),
        # transformers' batch of pairs (the zero-shot pipeline's); was: 'pass pre-tokenised sentences with
        # is_split_into_words=True', which would read each pair as a sentence of two words
        (lambda t: t([("a b", "c"), ["d", "e f"]]), "encodes single sentences .ELMo has no sentence pairs.; encode"),
        (lambda t: t.convert_ids_to_tokens(7), "char id 7 alone is not a token"),
    ],
    ids=[
        "left-call",
        "left-pad",
        "left-init",
        "max-length-missing",
        "unknown-padding",
        "text-pair",
        "batch-of-pairs",
        "one-id",
    ],
)
def test_options_elmo_cannot_honour_are_errors_not_ignored(call, message):
    with pytest.raises(ValueError, match=message):
        call(ElmoTokenizer())


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda t: t("a b c", truncation=True, max_length=-1),
            r"max_length must be a positive int .*, got the int -1$",
        ),
        (
            lambda t: t("a b c", padding="max_length", max_length=0),
            r"max_length must be a positive int .*, got the int 0$",
        ),
        (
            lambda t: t("a b c", truncation=True, max_length=2.0),
            r"max_length must be a positive int .*, got the float 2.0$",
        ),
        (lambda t: t("a b c", padding=True, pad_to_multiple_of=-2), "pad_to_multiple_of must be a positive int"),
        (
            lambda t: t.pad([t("a b c")], pad_to_multiple_of=-2),
            r"pad_to_multiple_of must be a positive int .*, got the int -2$",
        ),
        (lambda t: t.pad([t("a")], padding="max_length", max_length=-1), "max_length must be a positive int"),
    ],
    ids=["truncate-negative", "pad-zero", "float", "multiple-call", "multiple-pad", "pad-negative"],
)
def test_a_length_that_is_no_positive_int_is_refused_not_used_to_cut_words(call, message):
    """max_length=-1 with truncation kept all words but the last (a slice), pad_to_multiple_of=-2 padded
    3 words to 2, dropping one, and 0 was read as no limit."""
    with pytest.raises(ValueError, match=message):
        call(ElmoTokenizer())


@pytest.mark.parametrize("limit", [0, -1])
def test_a_model_max_length_that_is_no_positive_int_is_refused_not_used_to_cut_words(limit):
    """truncation=True cut to model_max_length as a slice: 0 kept no word, -1 all but the last."""
    tokenizer = ElmoTokenizer(model_max_length=limit)
    with pytest.raises(
        ValueError, match=rf"^the tokenizer's model_max_length must be a positive int .*, got the int {limit}: "
    ):
        tokenizer("a b c", truncation=True)
    assert len(tokenizer("a b c", truncation=True, max_length=2)["input_ids"]) == 2


def test_a_truncation_transformers_does_not_know_is_refused_not_taken_for_true():
    with pytest.raises(ValueError, match=r"^truncation must be True, False, 'longest_first', .*got the str 'first'$"):
        ElmoTokenizer()("a b c", truncation="first", max_length=2)
    assert len(ElmoTokenizer()("a b c", truncation="only_first", max_length=2)["input_ids"]) == 2


def test_pipelines_batch_with_pad_token_id_0_the_all_zero_padding_token():
    from transformers import pipeline

    from hf_elmo import ElmoModel
    from hf_elmo.pretrained import DEFAULT_MODEL

    model = ElmoModel.from_pretrained(DEFAULT_MODEL)
    tokenizer = ElmoTokenizer.from_pretrained(DEFAULT_MODEL)
    assert tokenizer.pad_token_id == 0 and tokenizer.convert_ids_to_tokens(0) == ""
    extractor = pipeline("feature-extraction", model=model, tokenizer=tokenizer)
    texts = ["The cat sat on the mat.", "Hi!", "A longer sentence, with commas, and more words."]
    batched = extractor(texts, batch_size=3)
    for text, vectors in zip(texts, batched):
        alone = torch.tensor(extractor(text))  # (1, T, 2P)
        vectors = torch.tensor(vectors)  # (1, T_longest, 2P): padding rows are zero
        torch.testing.assert_close(vectors[:, : alone.shape[1]], alone, rtol=0, atol=1e-6)
        assert not vectors[:, alone.shape[1] :].any()


def test_char_ids_convert_back_to_words_and_decode_to_text():
    tokenizer = ElmoTokenizer()
    ids = tokenizer(["The naïve cat", "Hi"], padding=True, return_tensors="pt")["input_ids"]
    assert tokenizer.convert_ids_to_tokens(ids[0]) == ["The", "naïve", "cat"]
    assert tokenizer.convert_ids_to_tokens(ids[1]) == ["Hi", "", ""]  # padding is no word
    assert tokenizer.convert_ids_to_tokens(ids[1], skip_special_tokens=True) == ["Hi"]
    assert tokenizer.decode(ids[1]) == "Hi" and tokenizer.batch_decode(ids) == ["The naïve cat", "Hi"]
    assert tokenizer.convert_tokens_to_ids("cat") == token_to_char_ids("cat")
    assert tokenizer.convert_tokens_to_ids(["a", "b"]) == [token_to_char_ids("a"), token_to_char_ids("b")]
    assert tokenizer.convert_ids_to_tokens(tokenizer.convert_tokens_to_ids("東" * 20)) == "東" * 16
    assert tokenizer.convert_ids_to_tokens([begin_of_sentence_ids(), end_of_sentence_ids()]) == ["<S>", "</S>"]
    with pytest.raises(ValueError, match="not ELMo character ids"):
        tokenizer.convert_ids_to_tokens([5] * 50)


def test_a_batch_of_word_lists_without_is_split_into_words_names_the_sentence_and_the_flag():
    with pytest.raises(
        TypeError,
        match=r"^sentence 1 of the batch is the list \['a', 'b', 'c'\], not a text \(str\); pass pre-split words ",
    ):
        ElmoTokenizer()(["The cat", ["a", "b", "c"]])


@pytest.mark.parametrize("text", ["hello world", [["a", "b"], "cd"]], ids=["str", "batch-with-a-str"])
def test_a_string_where_words_are_expected_is_refused(text):
    with pytest.raises(TypeError, match="not a list of words|expects a list of words"):
        ElmoTokenizer()(text, is_split_into_words=True)


def test_feature_extraction_pipeline_embeds_the_words_the_shipped_model_was_trained_on():
    from transformers import AutoTokenizer, pipeline

    from hf_elmo import ElmoModel
    from hf_elmo.pretrained import DEFAULT_MODEL

    model = ElmoModel.from_pretrained(DEFAULT_MODEL, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(DEFAULT_MODEL)
    extractor = pipeline("feature-extraction", model=model, tokenizer=tokenizer)
    vectors = torch.tensor(extractor(SENTENCE))  # (1, tokens, 2P)
    words = ["The", "cat", "sat", "on", "the", "mat", "."]
    with torch.inference_mode():
        expected = model(input_ids=batch_to_ids([words])).last_hidden_state
    assert vectors.shape == expected.shape == (1, 7, 2 * model.config.projection_dim)
    torch.testing.assert_close(vectors, expected, rtol=0, atol=1e-6)


def test_the_tokenizer_loads_by_the_shipped_models_name_as_the_model_does():
    from hf_elmo.loading import ModelNotFoundError
    from hf_elmo.pretrained import DEFAULT_MODEL_NAME

    tokenizer = ElmoTokenizer.from_pretrained(DEFAULT_MODEL_NAME)
    assert tokenizer.pre_tokenizer == "spacy:en"
    assert tokenizer.tokenize("The cat didn't sit.") == ["The", "cat", "did", "n't", "sit", "."]
    with pytest.raises(ModelNotFoundError, match="no shipped model 'hf-elmo:nope'"):
        ElmoTokenizer.from_pretrained("hf-elmo:nope")


def test_one_words_row_decodes_to_the_word_and_one_id_only_as_padding():
    tokenizer = ElmoTokenizer()
    assert tokenizer.decode(tokenizer.convert_tokens_to_ids("cat")) == "cat"
    assert tokenizer.decode(torch.tensor(token_to_char_ids("naïve"))) == "naïve"
    assert tokenizer.decode(0) == ""
    with pytest.raises(ValueError, match="char id 5 alone is not a token"):
        tokenizer.decode(5)


def test_numpy_char_ids_decode_as_tensors_and_lists_do_as_transformers_decode_takes_them():
    """decode(encoding["input_ids"][0]) of a return_tensors="np" encoding raised "TypeError: 'numpy.int64'
    object is not iterable", as did one word's row and convert_ids_to_tokens of it."""
    tokenizer = ElmoTokenizer()
    ids = tokenizer(["The naïve cat", "Hi"], padding=True, return_tensors="np")["input_ids"]
    assert tokenizer.decode(ids[0]) == tokenizer.decode(torch.as_tensor(ids[0])) == "The naïve cat"
    assert tokenizer.decode(list(ids[1])) == "Hi" and tokenizer.decode(ids) == ["The naïve cat", "Hi"]
    assert tokenizer.decode(ids[0][1]) == tokenizer.convert_ids_to_tokens(ids[0][1]) == "naïve"
    assert tokenizer.convert_ids_to_tokens(ids[1]) == ["Hi", "", ""] and tokenizer.decode(np.int64(0)) == ""
    assert tokenizer.batch_decode(list(ids)) == tokenizer.batch_decode(ids) == ["The naïve cat", "Hi"]


def test_len_is_the_number_of_char_ids_as_vocab_size_and_get_vocab_names_each_of_them():
    """get_vocab() was {} while len(tokenizer) was 262; transformers expects them to agree."""
    tokenizer = ElmoTokenizer()
    vocab = tokenizer.get_vocab()
    assert len(tokenizer) == tokenizer.vocab_size == len(vocab) == 262
    assert sorted(vocab.values()) == list(range(262))
    assert vocab["<pad>"] == 0 and vocab["<0x61>"] == ord("a") + 1
    names = ("<S>", "</S>", "<bow>", "<eow>", "<char_pad>")
    assert [vocab[name] for name in names] == [
        begin_of_sentence_ids()[1],
        end_of_sentence_ids()[1],
        *token_to_char_ids("")[:3],  # an empty word: begin, end, padding
    ]


def test_transformers_encoding_options_are_honoured():
    tokenizer = ElmoTokenizer()
    plain = tokenizer(["a b c", "d"], padding=True, return_tensors="pt")
    for special in (True, False):  # ELMo adds no special tokens; the model adds the sentence markers
        same = tokenizer(["a b c", "d"], padding=True, return_tensors="pt", add_special_tokens=special, verbose=True)
        assert torch.equal(same["input_ids"], plain["input_ids"])
    without_mask = tokenizer(["a b c", "d"], padding=True, return_attention_mask=False, return_token_type_ids=False)
    assert set(without_mask) == {"input_ids"} and without_mask.word_ids(1) == [0, None, None]
    assert tokenizer(["a b c", "d"], padding=True, return_length=True, return_tensors="pt")["length"].tolist() == [3, 1]
    assert tokenizer("a b c", return_length=True)["length"] == 3
    with pytest.raises(ValueError, match="ELMo has no token type ids"):
        tokenizer("a b", return_token_type_ids=True)


def test_encode_gives_the_calls_input_ids_as_transformers_encode_does():
    """encode crashed with "TypeError: 'int' object is not iterable" inside transformers' pad:
    its stock path reaches the char-id rows through an integer-id tokenizer's code."""
    tokenizer = ElmoTokenizer()
    assert tokenizer.encode("The cat sat") == tokenizer("The cat sat")["input_ids"]
    assert tokenizer.encode(["The", "cat"], is_split_into_words=True) == tokenizer("The cat")["input_ids"]
    assert tokenizer.encode(["a b c", "d"]) == tokenizer(["a b c", "d"])["input_ids"]
    tensor = tokenizer.encode("a b c", return_tensors="pt", truncation=True, max_length=2)
    assert torch.equal(tensor, tokenizer("a b", return_tensors="pt")["input_ids"])
    assert torch.equal(
        tokenizer.encode(["a b c", "d"], padding=True, return_tensors="pt"),
        tokenizer(["a b c", "d"], padding=True, return_tensors="pt")["input_ids"],
    )
    with pytest.raises(ValueError, match="encodes single sentences"):
        tokenizer.encode("a b", "c d")


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"return_tensors": "pt"},
        {"padding": "max_length", "max_length": 5, "return_special_tokens_mask": True, "return_length": True},
        {"truncation": True, "max_length": 2},
    ],
)
def test_prepare_for_model_gives_what_the_call_gives_for_the_words_of_the_ids(options):
    """transformers' prepare_for_model handed the sentence's (T, W) rows to pad as a batch:
    "TypeError: 'int' object is not iterable"."""
    tokenizer = ElmoTokenizer(truncation_side="left")
    words = ["a", "b", "c"]
    prepared = tokenizer.prepare_for_model(tokenizer.convert_tokens_to_ids(words), **options)
    called = tokenizer(words, is_split_into_words=True, **options)
    assert set(prepared) == set(called)
    for key, value in called.items():
        expected = value[0] if isinstance(value, torch.Tensor) else value  # the call's tensors are a batch of one
        assert torch.equal(prepared[key], expected) if isinstance(expected, torch.Tensor) else prepared[key] == expected
    assert prepared.word_ids() == called.word_ids()
    batched = tokenizer.prepare_for_model(
        tokenizer.convert_tokens_to_ids(words), return_tensors="pt", prepend_batch_axis=True
    )
    assert batched["input_ids"].shape == (1, 3, 50)


@pytest.mark.parametrize("ids", [[1, 2, 3], "a b", [[1, 2]]], ids=["flat", "text", "short-row"])
def test_prepare_for_model_refuses_what_is_no_sentences_char_ids_in_one_line(ids):
    with pytest.raises(ValueError, match=r"^prepare_for_model takes one sentence's char ids, rows of 50 ints"):
        ElmoTokenizer().prepare_for_model(ids)
    with pytest.raises(ValueError, match="encodes single sentences"):
        ElmoTokenizer().prepare_for_model([token_to_char_ids("a")], [token_to_char_ids("b")])


@pytest.mark.parametrize("pre_tokenizer", ["whitespace", "spacy:en"])
def test_raw_text_without_a_utf8_form_is_a_one_line_error(pre_tokenizer):
    with pytest.raises(ValueError, match=r"contains '\\udc80' \(a lone surrogate\), which has no UTF-8 form"):
        ElmoTokenizer(pre_tokenizer=pre_tokenizer)("bad \udc80 byte")


def test_a_model_folder_saved_without_its_tokenizer_splits_raw_text_as_the_model_was_trained(tmp_path):
    """model.save_pretrained(folder) alone used to give a whitespace tokenizer for the shipped model,
    trained on spaCy-split text: "can't" one word instead of "ca" "n't", silently."""
    from transformers import AutoTokenizer, pipeline

    from hf_elmo import ElmoConfig, ElmoModel
    from hf_elmo.pretrained import DEFAULT_MODEL_NAME

    shipped = ElmoTokenizer.from_pretrained(DEFAULT_MODEL_NAME)
    assert ElmoConfig.from_pretrained(DEFAULT_MODEL_NAME).pre_tokenizer == shipped.pre_tokenizer == "spacy:en"
    ElmoModel.from_pretrained(DEFAULT_MODEL_NAME).save_pretrained(tmp_path / "model")
    assert not (tmp_path / "model" / "tokenizer_config.json").exists()
    text = ["I can't go, sorry.", "Hi"]
    expected = shipped(text, padding=True, return_tensors="pt")["input_ids"]
    for tokenizer in (
        ElmoTokenizer.from_pretrained(tmp_path / "model"),
        AutoTokenizer.from_pretrained(tmp_path / "model"),
    ):
        assert tokenizer.tokenize(text[0]) == ["I", "ca", "n't", "go", ",", "sorry", "."]
        assert torch.equal(tokenizer(text, padding=True, return_tensors="pt")["input_ids"], expected)
    tokenizer.save_pretrained(tmp_path / "model")  # round trip: now the tokenizer's own files say it
    assert ElmoTokenizer.from_pretrained(tmp_path / "model").pre_tokenizer == "spacy:en"
    assert len(pipeline("feature-extraction", model=str(tmp_path / "model"))(text[0])[0]) == 7


@pytest.mark.parametrize("packaged", [True, False], ids=["package", "remote-code"])
def test_a_subfolder_without_the_models_files_is_refused_not_given_the_default_tokenizer(
    packaged, tmp_path, monkeypatch
):
    """Was: ElmoTokenizer.from_pretrained(FOLDER_OR_HUB_ID, subfolder=TYPO) gave the default tokenizer (width 50),
    not the model's (here 30), with no word. With the package, the resolver names the subfolder as for the
    model; without it (a remote-code copy: no package_loader), the tokenizer's own check does."""
    from hf_elmo import ElmoConfig, ElmoModel
    from tests.hub_cache import add_repo_to_cache

    if not packaged:
        monkeypatch.setattr(ElmoTokenizer, "package_loader", None)
    tiny = ElmoConfig(char_embedding_dim=4, filters=[[1, 4]], lstm_dim=8, projection_dim=4, n_layers=1)
    ElmoModel(ElmoConfig(**{**tiny.to_diff_dict(), "max_characters_per_token": 30})).save_pretrained(tmp_path / "elmo")
    add_repo_to_cache(tmp_path / "hub", "org/elmo-in-a-subfolder", tmp_path / "elmo", subfolder="elmo")
    hub = dict(cache_dir=tmp_path / "hub", local_files_only=True)
    for name, settings in ((tmp_path, {}), ("org/elmo-in-a-subfolder", hub)):
        assert ElmoTokenizer.from_pretrained(name, subfolder="elmo", **settings).max_characters_per_token == 30
        with pytest.raises(FileNotFoundError) as refused:
            ElmoTokenizer.from_pretrained(name, subfolder="elmoo", **settings)
        if not packaged:
            assert str(refused.value) == (
                f"found neither tokenizer_config.json nor config.json in subfolder 'elmoo' of {name}: give the "
                "subfolder that holds the model's or its tokenizer's files"
            )
            continue
        where = name if name == tmp_path else f"Hub repository {name} (its copy in the local Hub cache: offline)"
        assert str(refused.value) == (
            f"{where} has no subfolder 'elmoo': give the subfolder that holds the model's files, or leave subfolder out"
        )


def test_a_model_folder_without_tokenizer_files_or_pre_tokenizer_warns_once_naming_it(tmp_path):
    from transformers.testing_utils import CaptureLogger

    from hf_elmo import ElmoConfig, ElmoModel
    from hf_elmo.tokenizer_settings import _logger

    tiny = ElmoConfig(char_embedding_dim=4, filters=[[1, 4]], lstm_dim=8, projection_dim=4, n_layers=1)
    ElmoModel(tiny).save_pretrained(tmp_path)
    with CaptureLogger(_logger) as first:
        assert ElmoTokenizer.from_pretrained(tmp_path).pre_tokenizer == "whitespace"
    with CaptureLogger(_logger) as again:
        ElmoTokenizer.from_pretrained(tmp_path)
    assert f"{tmp_path} holds no tokenizer files and its config.json records no pre_tokenizer" in first.out
    assert "tokenizer.save_pretrained" in first.out and again.out == ""
    with CaptureLogger(_logger) as told:  # the caller says how
        assert ElmoTokenizer.from_pretrained(tmp_path, pre_tokenizer="spacy:en").pre_tokenizer == "spacy:en"
    assert told.out == ""


@pytest.mark.parametrize(
    "files, message",
    [
        ({"config.json": {"model_type": "bert"}}, "config.json is the config of a bert model, not an ELMo one"),
        (
            {"tokenizer_config.json": {"tokenizer_class": "BertTokenizer"}},
            "tokenizer_config.json is the config of the tokenizer 'BertTokenizer', not of an ElmoTokenizer",
        ),
    ],
    ids=["model-type", "tokenizer-class"],
)
def test_the_folder_of_another_model_is_refused_not_loaded_as_a_whitespace_tokenizer(tmp_path, files, message):
    import json

    for name, contents in files.items():
        (tmp_path / name).write_text(json.dumps(contents))
    with pytest.raises(ValueError, match=message):
        ElmoTokenizer.from_pretrained(tmp_path)


def test_without_padding_a_batch_is_ragged_and_unequal_tensors_are_refused_as_in_transformers():
    """padding=False (transformers' default) used to pad anyway; BERT returns ragged lists."""
    tokenizer = ElmoTokenizer()
    for options in ({}, {"padding": False}, {"padding": "do_not_pad"}):
        encoded = tokenizer(["a b c", "d"], return_offsets_mapping=True, return_special_tokens_mask=True, **options)
        assert [len(row) for row in encoded["input_ids"]] == [3, 1]
        assert encoded["attention_mask"] == [[1, 1, 1], [1]] and encoded["special_tokens_mask"] == [[0, 0, 0], [0]]
        assert encoded["offset_mapping"] == [[(0, 1), (2, 3), (4, 5)], [(0, 1)]] and encoded.word_ids(1) == [0]
    assert tokenizer.pad([tokenizer("a b"), tokenizer("c")], padding=False)["attention_mask"] == [[1, 1], [1]]
    for call in (
        lambda: tokenizer(["a b c", "d"], return_tensors="pt"),
        lambda: tokenizer.pad([tokenizer("a b"), tokenizer("c")], padding=False, return_tensors="pt"),
    ):
        with pytest.raises(ValueError, match="different lengths .3, 1 words|different lengths .2, 1 words"):
            call()
    assert tokenizer(["a b", "c d"], return_tensors="pt")["input_ids"].shape == (2, 2, 50)  # equal: one tensor
    assert tokenizer("a b", pad_to_multiple_of=4)["attention_mask"] == [1, 1]  # as transformers: no padding asked


def test_numpy_arrays_come_from_the_call_and_from_pad_alike_equal_to_the_tensors():
    import numpy as np

    tokenizer = ElmoTokenizer()
    options = dict(padding=True, return_offsets_mapping=True, return_special_tokens_mask=True, return_length=True)
    arrays, tensors = (tokenizer(["a b c", "d"], return_tensors=kind, **options) for kind in ("np", "pt"))
    assert set(arrays) == set(tensors)
    for key in tensors:
        assert isinstance(arrays[key], np.ndarray) and np.array_equal(arrays[key], tensors[key].numpy()), key
    padded = tokenizer.pad([tokenizer("a b c"), tokenizer("d")], return_tensors="np")
    assert np.array_equal(padded["input_ids"], arrays["input_ids"])
    assert np.array_equal(padded["attention_mask"], arrays["attention_mask"])
    with pytest.raises(ValueError, match="different lengths"):
        tokenizer(["a b c", "d"], return_tensors="np")
    no_mask = tokenizer(["a b c", "d"], padding=True, return_tensors="np", return_attention_mask=False)
    for encoding in (arrays, padded, no_mask):
        assert encoding.word_ids(1) == tensors.word_ids(1) == [0, None, None]


def test_pad_pads_one_encoding_alone_and_gives_it_back_without_a_batch_axis_as_transformers_does():
    """Its (T, W) input_ids were read as a batch of T sentences: a TypeError ('int' object is not
    iterable), or, for the call's output, each char id taken for a word."""
    tokenizer = ElmoTokenizer()
    alone = tokenizer.pad(tokenizer("a b"), padding="max_length", max_length=4)
    assert (
        alone["attention_mask"] == [1, 1, 0, 0]
        and len(alone["input_ids"]) == 4
        and alone.word_ids() == [0, 1, None, None]
    )
    ids = tokenizer.pad({"input_ids": torch.tensor(tokenizer.convert_tokens_to_ids(["a", "b"]))}, return_tensors="pt")
    assert ids["input_ids"].shape == (2, 50) and ids["attention_mask"].tolist() == [1, 1]


def test_pad_adds_no_attention_mask_when_told_not_to():
    tokenizer = ElmoTokenizer()
    features = [{"input_ids": tokenizer("a b")["input_ids"]}, {"input_ids": tokenizer("c")["input_ids"]}]
    assert "attention_mask" not in tokenizer.pad(features, return_tensors="pt", return_attention_mask=False)
    assert tokenizer.pad(features, return_tensors="pt")["attention_mask"].tolist() == [[1, 1], [1, 0]]


@pytest.mark.parametrize("kind", ["list", "np", "pt"])
def test_pad_makes_a_missing_attention_mask_0_on_padding_tokens_the_encodings_already_hold(kind):
    """Encodings padded before (padding="max_length") without their mask got a mask of all 1s, which
    the model refuses as marking padding as tokens."""
    import numpy as np

    tokenizer = ElmoTokenizer()
    features = [
        {"input_ids": tokenizer(text, padding="max_length", max_length=3)["input_ids"]} for text in ("a b", "c")
    ]
    convert = {"list": lambda ids: ids, "np": np.array, "pt": torch.tensor}[kind]
    features = [{"input_ids": convert(feature["input_ids"])} for feature in features]
    padded = tokenizer.pad(features, padding="max_length", max_length=4, return_tensors="pt")
    assert padded["attention_mask"].tolist() == [[1, 1, 0, 0], [1, 0, 0, 0]]
    expected = tokenizer(["a b", "c"], padding="max_length", max_length=4, return_tensors="pt")
    assert torch.equal(padded["input_ids"], expected["input_ids"])


@pytest.mark.parametrize(
    "add", [lambda t: t.add_tokens(["foo"]), lambda t: t.add_special_tokens({"pad_token": "[PAD]"})]
)
def test_adding_tokens_is_refused_as_there_is_no_token_vocabulary(add, tmp_path):
    """transformers would report one token added, change nothing, and save it at id 262 (no char id)."""
    tokenizer = ElmoTokenizer()
    with pytest.raises(ValueError, match="ElmoTokenizer has no token vocabulary to add to"):
        add(tokenizer)
    assert len(tokenizer) == 262 and not tokenizer.added_tokens_decoder
    assert tokenizer.add_tokens([]) == 0 and tokenizer.add_special_tokens({}) == 0


def test_an_empty_batch_is_refused_by_the_tokenizer_in_its_own_words():
    """Was: 'empty batch: batch_to_ids needs at least one sentence', naming an inner function."""
    with pytest.raises(ValueError, match=r"^ElmoTokenizer got an empty batch \(\[\]\): pass at least one text"):
        ElmoTokenizer()([])
    assert ElmoTokenizer()("")["input_ids"] == []


def test_an_empty_list_of_pre_split_words_is_a_sentence_without_words_as_in_transformers():
    """Was refused as an empty batch, so datasets.map(tokenizer(row["tokens"], is_split_into_words=True))
    stopped at a row without tokens; BERT's tokenizer reads [] so too, as one sentence of no words."""
    tokenizer = ElmoTokenizer()
    assert tokenizer([], is_split_into_words=True) == tokenizer("")
    assert tokenizer([], is_split_into_words=True, return_tensors="pt")["input_ids"].shape == (1, 0, 50)
    assert tokenizer([[], ["a"]], is_split_into_words=True, padding=True)["attention_mask"] == [[0], [1]]


def test_word_ids_after_left_truncation_number_the_input_words_as_fast_tokenizers_do():
    """BERT's fast tokenizer gives [1, 2] for ["aa", "bb", "cc"] cut to its last 2 words: labels[word_id]
    must pick the kept words' labels, not the first words'."""
    tokenizer = ElmoTokenizer(truncation_side="left")
    words = [["aa", "bb", "cc"], ["dd"]]
    encoded = tokenizer(words, is_split_into_words=True, truncation=True, max_length=2, padding=True)
    assert encoded.word_ids(0) == [1, 2] and encoded.word_ids(1) == [0, None]
    assert pickle.loads(pickle.dumps(encoded)).word_ids(0) == [1, 2]
    raw = tokenizer("a b c d e", truncation=True, max_length=2, return_offsets_mapping=True, return_tensors="pt")
    assert raw.word_ids() == [3, 4] and raw["offset_mapping"].tolist() == [[[6, 7], [8, 9]]]
    assert ElmoTokenizer()(words, is_split_into_words=True, truncation=True, max_length=2).word_ids(0) == [0, 1]


@pytest.mark.parametrize("return_tensors", ["pt", "np"])
def test_prepare_for_model_of_no_words_gives_input_ids_of_no_rows_of_the_tokenizers_width(return_tensors):
    """Was a tensor of shape (0,), whose missing width the model refuses, where the call gives (1, 0, 50)."""
    tokenizer = ElmoTokenizer()
    prepared = tokenizer.prepare_for_model([], return_tensors=return_tensors, prepend_batch_axis=True)
    called = tokenizer([], is_split_into_words=True, return_tensors=return_tensors)
    assert prepared["input_ids"].shape == called["input_ids"].shape == (1, 0, 50)
    assert prepared["attention_mask"].shape == (1, 0)
