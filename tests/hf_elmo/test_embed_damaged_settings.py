"""An output of ``elmo embed`` whose settings record (``SETTINGS_ATTRIBUTE``) is damaged or hand-edited
(no JSON, or JSON that is no object: a list, a number, a string; an attribute that is no text) is
refused in one line naming the file and what to do, by ``elmo embed`` and by ``open_embeddings``; a
whole output's is replaced with ``--overwrite``. Was: ``AttributeError: 'list' object has no attribute
'get'`` from every one of them (or, for no JSON, json's error naming no file)."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

from hf_elmo.embed import open_embeddings
from hf_elmo.embed.output import SETTINGS_ATTRIBUTE
from tests.hf_elmo.test_embed_safety import embed, error_lines, write_text

DAMAGED = ["[1, 2]", "5", '"text"', "{not JSON", np.int64(5)]
IDS = ["list", "number", "string", "no JSON", "no text"]


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


def damage(path: Path, value: object) -> None:
    with h5py.File(path, "a") as handle:
        handle.attrs[SETTINGS_ATTRIBUTE] = value


def assert_refused_in_one_line(error: BaseException, path: Path) -> None:
    message = str(error)
    assert "\n" not in message
    assert message.startswith(f"{path} is damaged: its {SETTINGS_ATTRIBUTE} attribute holds ")
    assert "elmo embed --overwrite" in message


@pytest.mark.parametrize("value", DAMAGED, ids=IDS)
def test_a_whole_output_with_damaged_settings(value, model_dir, text, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir) == 0
    damage(out, value)
    with pytest.raises(ValueError) as opened:
        open_embeddings(out)
    assert_refused_in_one_line(opened.value, out)

    capsys.readouterr()
    assert embed(text, out, model_dir) == 2
    assert error_lines(capsys.readouterr().err) == [f"elmo embed: error: {out} exists; pass --overwrite to replace it"]
    assert embed(text, out, model_dir, "--overwrite") == 0, capsys.readouterr().err
    with open_embeddings(out) as embeddings:
        assert len(embeddings) == 23


@pytest.mark.parametrize("value", DAMAGED, ids=IDS)
def test_a_shard_with_damaged_settings(value, model_dir, text, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir, "--shard", "0/2") == 0
    first = tmp_path / "out.shard-0-of-2.hdf5"
    damage(first, value)
    capsys.readouterr()
    assert embed(text, out, model_dir, "--shard", "1/2") == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert_refused_in_one_line(ValueError(line.removeprefix("elmo embed: error: ")), first)
    assert not (tmp_path / "out.shard-1-of-2.hdf5").exists()

    assert embed(text, out, model_dir, "--shard", "1/2", "--overwrite") == 0  # as the line says: then shard 0 again
    with pytest.raises(ValueError) as opened:
        open_embeddings(tmp_path / "out.hdf5.index.json")
    assert_refused_in_one_line(opened.value, first)
    assert embed(text, out, model_dir, "--shard", "0/2", "--overwrite") == 0
    with open_embeddings(tmp_path / "out.hdf5.index.json") as embeddings:
        assert len(embeddings) == 23
