"""A model named by one of its folder's files (``--model my-elmo/config.json``, the weights, the original
options.json) is refused in one line naming the folder to give instead (was: only "is a file, but a model is a
folder ..."); a file that is no model's stays refused as before, without a folder to give."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo import ElmoConfig, ElmoModel
from hf_elmo.elmo_weights import InvalidModelError
from hf_elmo.loading import resolve_model
from hf_elmo_cli import main
from tests.numpy_elmo import small_options, write_random_original

TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=1)
FOLDER = "is a file, but a model is a folder (config.json + model.safetensors, or options.json + weights .hdf5) or a "


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("my-elmo")
    ElmoModel(ElmoConfig(**TINY)).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("original")
    write_random_original(folder, small_options(), seed=3)
    return folder


def _refusal(path: Path) -> str:
    with pytest.raises(InvalidModelError) as caught:
        resolve_model(str(path))
    return str(caught.value)


@pytest.mark.parametrize("name", ["config.json", "model.safetensors"])
def test_a_file_of_a_saved_model_names_its_folder(saved, name):
    said = _refusal(saved / name)
    assert said == f"{saved / name} {FOLDER}.zip archive of the original files: give its folder, {saved}"


@pytest.mark.parametrize("name", ["options.json", "weights.hdf5"])
def test_a_file_of_the_original_files_names_their_folder(original, name):
    assert _refusal(original / name).endswith(f"original files: give its folder, {original}")


def test_a_file_of_no_model_is_refused_as_before(tmp_path):
    stray = tmp_path / "options.txt"  # beside no model's files
    stray.write_text("{}", encoding="utf-8")
    assert _refusal(stray) == f"{stray} {FOLDER}.zip archive of the original files"


def test_elmo_embed_says_it_in_one_line(saved, tmp_path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("a b\n", encoding="utf-8")
    assert main(["embed", str(text), str(tmp_path / "out.hdf5"), "--model", str(saved / "config.json")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo embed: error: {saved / 'config.json'} {FOLDER}.zip archive of the original files: give its folder, "
        f"{saved}"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]
