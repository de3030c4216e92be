"""An export's wrappers refuse a token longer than the folder's max_token_chars with their own remedy, exporting
again with --max-token-chars none (was: the tokenizer's 'pass max_token_chars=None', an argument that neither
OnnxElmo nor TorchExportElmo takes)."""

from __future__ import annotations

import pytest

from hf_elmo.export import export_model, open_exported
from tests.hf_elmo.random_inputs import clipped_random_model


@pytest.mark.parametrize("sentences", [[["a", "x" * 101]], ["a " + "x" * 101]], ids=["words", "raw text"])
def test_a_token_too_long_for_an_export_says_to_export_again_without_the_limit(sentences, tmp_path):
    exported = open_exported(export_model(clipped_random_model(), tmp_path / "out", "torch-export"))
    with pytest.raises(ValueError) as caught:
        exported(sentences)
    assert str(caught.value) == (
        "sentence 0, token 1: token of 101 characters ('xxxxxxxxxxxxxxxxxxxx'...) is longer than max_token_chars=100; "
        "ELMo reads only its first 48 UTF-8 bytes. Split it, or export the model again with --max-token-chars none "
        "to truncate it as the original does"
    )
