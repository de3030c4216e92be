"""``save_allennlp`` writes its two files whole or not at all, and refuses an output that is a folder in one line."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoModel
from hf_elmo.convert import save_allennlp
from tests.hf_elmo.test_heads import tiny_config


@pytest.mark.parametrize("which", ["options", "weights"])
def test_an_output_that_is_a_folder_is_refused_and_nothing_is_written(which, tmp_path):
    """Was, for the weights: options.json written, then h5py's "[Errno 21] Unable to synchronously create file
    (unable to open file: name = ..., flags = 13, o_flags = 242)"; for the options: "[Errno 21] Is a directory"."""
    paths = {"options": tmp_path / "options.json", "weights": tmp_path / "weights.hdf5"}
    paths[which].mkdir()
    with pytest.raises(FileExistsError) as refused:
        save_allennlp(ElmoModel(tiny_config()), paths["options"], paths["weights"])
    assert str(refused.value) == f"the output {paths[which]} is a folder; give the path of the file to write"
    assert sorted(p.name for p in tmp_path.iterdir()) == [paths[which].name]  # no file, no temporary one


def test_a_failed_weight_write_leaves_no_options_file(tmp_path, monkeypatch):
    """Was: options.json written first and left behind, without its weights."""
    import h5py

    def full_disk(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(h5py.Group, "create_dataset", full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        save_allennlp(ElmoModel(tiny_config()), tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert list(tmp_path.iterdir()) == []
