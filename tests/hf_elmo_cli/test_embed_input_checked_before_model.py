"""elmo embed refuses an input that it could not read (missing, a folder, a pipe, stdin) before it loads the model, as
it refuses such an output (was: after the model had loaded, seconds, or been downloaded from the Hub)."""

from __future__ import annotations

import os

import pytest

import hf_elmo.loading
from hf_elmo_cli import main


def refuse_to_load(*args, **kwargs):
    raise AssertionError("the model was loaded")


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: None, "the input {path}: no such file"),
        (lambda path: path.mkdir(), "the input {path} is a folder, not a text file"),
        (lambda path: os.mkfifo(path), "the input {path} is not a regular file (a pipe, stdin or a device?)"),
    ],
)
def test_an_input_that_cannot_be_read_is_refused_before_the_model_loads(make, said, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(hf_elmo.loading, "load_bilm", refuse_to_load)
    path = tmp_path / "in.txt"
    make(path)
    assert main(["embed", str(path), str(tmp_path / "out.hdf5"), "--model", "some-owner/some-model"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"elmo embed: error: {said.format(path=path)}") and err.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == (["in.txt"] if path.exists() else [])  # nothing written
