"""A setting of the Python API given an array (whose repr spans lines, and which ``in`` and ``==`` compare element
by element) is refused in one line naming the setting and the value's type (``messages.described``), as
any other value it does not take is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hf_elmo import Elmo, ElmoConfig, ElmoModel, ElmoTokenizer, ScalarMix
from hf_elmo.configuration_elmo import ElmoConfigError
from hf_elmo.embed import embed_sentences
from hf_elmo.training.settings import PretrainSettings, check_settings
from tests.hf_elmo.test_heads import tiny_config

ARRAY = np.zeros((2, 2))


def _encode(**options: Any) -> Callable[[], object]:
    return lambda: ElmoTokenizer()("a", **options)


def _tokenizer_with_model_max_length() -> object:
    tokenizer = ElmoTokenizer()
    tokenizer.model_max_length = ARRAY
    return tokenizer("a", truncation=True)


REFUSALS = {
    # Was numpy's "The truth value of an array with more than one element is ambiguous", naming no setting.
    "padding": (_encode(padding=ARRAY), "padding must be True, False, 'longest', 'max_length' or 'do_not_pad', got "),
    "truncation": (_encode(truncation=ARRAY), "truncation must be True, False, 'longest_first', 'only_first', "),
    "return_tensors": (_encode(return_tensors=ARRAY), "ElmoTokenizer supports return_tensors=None, 'pt' or 'np', "),
    "tokenizer pre_tokenizer": (lambda: ElmoTokenizer(pre_tokenizer=ARRAY), "pre_tokenizer must be "),
    "config pre_tokenizer": (lambda: ElmoConfig(pre_tokenizer=ARRAY), "ElmoConfig.pre_tokenizer must be "),
    "layers": (lambda: embed_sentences(ElmoModel(tiny_config()), [["a"]], layers=ARRAY), "layers must be one of "),
    "pool": (lambda: embed_sentences(ElmoModel(tiny_config()), [["a"]], pool=ARRAY), "pool must be one of "),
    "layer_norm": (lambda: ScalarMix(2, layer_norm=ARRAY), "layer_norm must be one of "),
    # Was the array's repr, over two lines.
    "max_length": (_encode(max_length=ARRAY), "max_length must be a positive int (a number of words) or None, got "),
    "pad_to_multiple_of": (_encode(pad_to_multiple_of=ARRAY), "pad_to_multiple_of must be a positive int "),
    "model_max_length": (_tokenizer_with_model_max_length, "the tokenizer's model_max_length must be a positive int"),
    "num_output_representations": (lambda: Elmo(None, None, ARRAY), "num_output_representations must be an int, "),
}


@pytest.mark.parametrize("setting", list(REFUSALS))
def test_a_setting_given_an_array_is_refused_in_one_line_naming_it(setting):
    refuse, start = REFUSALS[setting]
    with pytest.raises((ValueError, TypeError)) as refused:
        refuse()
    message = str(refused.value)
    assert message.startswith(start)
    assert "a value of type ndarray" in message
    assert "\n" not in message


def test_a_long_string_setting_is_cut_in_the_refusal():
    """Was the whole string, however long."""
    with pytest.raises(ValueError, match=rf"got the str '{'x' * 39}\.\.\.$"):
        ElmoTokenizer()("a", padding="x" * 1000)


def test_a_derived_config_field_given_an_array_is_named_in_one_line():
    """Was: "got array([[0., 0.],\\n       [0., 0.]])", over two lines."""
    with pytest.raises(ElmoConfigError) as refused:
        ElmoConfig(projection_dim=4, hidden_size=ARRAY)
    assert str(refused.value).endswith("got a value of type ndarray: set projection_dim instead")


def test_an_encoding_option_given_an_array_is_named_as_unsupported():
    """Was numpy's "The truth value of an array with more than one element is ambiguous"."""
    with pytest.raises(TypeError, match=r"^ElmoTokenizer does not support \['stride'\]: leave it unset$"):
        ElmoTokenizer()("a", stride=ARRAY)


def test_save_pretrained_names_a_storage_dtype_given_an_array(tmp_path):
    """Was numpy's "The truth value of an array with more than one element is ambiguous"."""
    model = ElmoModel(tiny_config())
    model.post_init()
    with pytest.raises(ValueError, match=r"storage_dtype must be .*, got a value of type ndarray$"):
        model.save_pretrained(tmp_path / "m", storage_dtype=ARRAY)


def test_a_pretraining_choice_given_an_array_is_named_in_one_line(tmp_path):
    """Was numpy's "The truth value of an array with more than one element is ambiguous"."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n")
    settings = PretrainSettings(train_file=str(corpus), output_dir=str(tmp_path / "m"), epochs=1, optimizer=ARRAY)
    with pytest.raises(ValueError, match=r"^--optimizer must be one of \['adagrad', 'adam'\], got a value of type"):
        check_settings(settings)


def test_the_spacy_scalar_mix_names_a_layer_norm_given_an_array():
    pytest.importorskip("spacy")
    from spacy_elmo.scalar_mix import scalar_mix

    with pytest.raises(Exception, match=r"layer_norm.*got a value of type ndarray") as refused:
        scalar_mix(layer_norm=ARRAY)
    assert "ambiguous" not in str(refused.value)
