"""``described``: the one way the package's errors show a value they refuse (the config's checks, the
tokenizer's and the exported wrappers' refusals of what is no batch, the output folder's check)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hf_elmo import ElmoConfig, ElmoTokenizer, batch_to_ids
from hf_elmo.char_ids import token_to_char_ids
from hf_elmo.configuration_elmo import ElmoConfigError
from hf_elmo.messages import described
from hf_elmo.output_folders import check_output_folder


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, "None"),
        (7, "the int 7"),
        ("abc", "the str 'abc'"),
        (True, "the bool True"),
        ([], "the list []"),
        (["word"] * 10, "the list " + repr(["word"] * 10)[:40] + "..."),
        (object(), "a value of type object"),  # its repr is no value: "<object object at 0x...>"
        (torch.nn.Sequential(torch.nn.Linear(1, 1)), "a value of type Sequential"),  # its repr spans lines
    ],
    ids=["none", "int", "str", "bool", "empty-list", "long-list", "object", "module"],
)
def test_a_value_is_described_on_one_line_by_its_type_and_its_short_repr(value, shown):
    assert described(value) == shown


def test_a_config_field_given_a_value_whose_repr_spans_lines_is_refused_in_one_line():
    """Was: "... got array([[1, 2],\n       [3, 4]]) (ndarray)", over two lines."""
    with pytest.raises(ElmoConfigError) as refused:
        ElmoConfig(lstm_dim=np.array([[1, 2], [3, 4]]))
    assert str(refused.value) == "ElmoConfig.lstm_dim must be an integer in 1..16384, got a value of type ndarray"


def test_a_word_whose_repr_spans_lines_is_refused_in_one_line():
    """Was: "... word 1 is the ElmoConfig ElmoConfig {\n  ...", the first 40 characters of its repr, and "tokens
    must be str, got ElmoConfig: ElmoConfig {\n ...", all of it."""
    with pytest.raises(TypeError, match=r"^tokens must be str, got a value of type ElmoConfig$"):
        token_to_char_ids(ElmoConfig())
    with pytest.raises(
        TypeError,
        match=r"^is_split_into_words=True: sentence 0, word 1 is a value of type ElmoConfig, not a str; pass each "
        r"word as a string$",
    ):
        ElmoTokenizer()([["a", ElmoConfig()]], is_split_into_words=True)


def test_batch_to_ids_given_no_batch_names_it_by_its_type_and_short_repr():
    """Was: "... got <object object at 0x7f...", the first 40 characters of its repr, and "got 3"."""
    with pytest.raises(TypeError, match=r"e\.g\. \[\['Hello', 'world'\]\], got a value of type object$"):
        batch_to_ids(object())
    with pytest.raises(TypeError, match=r"e\.g\. \[\['Hello', 'world'\]\], got the int 3$"):
        batch_to_ids(3)


def test_an_output_folder_that_is_no_path_is_named_by_its_value():
    """Was: "... not a value of type int", which hid the value given."""
    with pytest.raises(TypeError, match=r"^the output folder must be a path \(a str or Path\), not the int 3$"):
        check_output_folder(3, overwrite=False)
