"""``save_allennlp`` into folders that do not exist yet makes them (was: FileNotFoundError naming its hidden
temporary file), removes them again when the save fails, and refuses a path under a file in one line."""

from __future__ import annotations

import h5py
import pytest

from hf_elmo.convert import save_allennlp
from hf_elmo.original_files import load_allennlp
from tests.hf_elmo.random_inputs import clipped_random_model


@pytest.fixture(scope="module")
def model():
    return clipped_random_model()


def test_files_in_new_folders_are_written_and_load(model, tmp_path):
    options, weights = tmp_path / "new" / "options.json", tmp_path / "other" / "deeper" / "weights.hdf5"
    save_allennlp(model, options, weights)
    assert sorted(p.name for p in options.parent.iterdir()) == ["options.json"]
    assert sorted(p.name for p in weights.parent.iterdir()) == ["weights.hdf5"]
    assert load_allennlp(options, weights).config.to_allennlp_options() == model.config.to_allennlp_options()


def test_a_failed_save_leaves_no_folder_it_made(model, tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(h5py.File, "create_dataset", full)
    with pytest.raises(OSError, match="No space left on device"):
        save_allennlp(model, tmp_path / "new" / "options.json", tmp_path / "new" / "weights.hdf5")
    assert list(tmp_path.iterdir()) == []


def test_a_path_under_a_file_is_refused_before_anything_is_written(model, tmp_path):
    (tmp_path / "notes").write_text("mine")
    with pytest.raises(NotADirectoryError) as caught:
        save_allennlp(model, tmp_path / "notes" / "options.json", tmp_path / "weights.hdf5")
    assert str(caught.value) == (
        f"{tmp_path / 'notes'} is a file, not a folder, so {tmp_path / 'notes' / 'options.json'} cannot be written "
        "under it; choose another output path"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]
