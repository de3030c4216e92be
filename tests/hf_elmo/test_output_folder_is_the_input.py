"""An output folder that is an input is refused as the input itself, not as a folder that holds it."""

from __future__ import annotations

import re

import pytest

from hf_elmo.output_folders import check_output_folder


def test_an_output_folder_that_is_the_input_is_refused_as_the_input(tmp_path):
    """Was: "the output folder X holds the input X", of a folder that holds nothing of the sort."""
    model = tmp_path / "model"
    model.mkdir()
    message = f"the output folder {model} is the input; write to another folder (it would be deleted)"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_output_folder(model, overwrite=True, inputs=[model])
    assert model.is_dir()


def test_an_output_folder_named_otherwise_than_the_input_names_it(tmp_path, monkeypatch):
    (tmp_path / "model").mkdir()
    monkeypatch.chdir(tmp_path)
    message = f"the output folder model is the input {(tmp_path / 'model').resolve()}; write to another folder"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        check_output_folder("model", overwrite=True, inputs=[tmp_path / "model"])
