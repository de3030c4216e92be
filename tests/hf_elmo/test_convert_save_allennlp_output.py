"""``save_allennlp`` writes ``options.json`` and ``weights.hdf5`` aside and renames them into place whole: an error
or Ctrl-C mid-write leaves earlier files as they were; one path for both, a folder or a link is refused before
anything is written, a full disk too (HDF5 does not survive it); ``~`` is the home folder."""

from __future__ import annotations

import errno

import h5py
import pytest

import hf_elmo.fileio
from hf_elmo.convert import save_allennlp
from hf_elmo.fileio import FREE_SPACE_RESERVE
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_convert_safety import DiskUsage


@pytest.fixture(scope="module")
def model():
    return clipped_random_model()


def files_of(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize("stop", [KeyboardInterrupt, OSError])
def test_a_save_stopped_mid_write_leaves_the_earlier_files_and_no_temporary_file(stop, model, tmp_path, monkeypatch):
    """Was: options.json rewritten and weights.hdf5 truncated, then half-written: a pair that loads no model."""
    save_allennlp(model, tmp_path / "options.json", tmp_path / "weights.hdf5")
    before = files_of(tmp_path)
    real = h5py.Group.create_dataset
    calls = []

    def stopped(self, name, *args, **kwargs):
        calls.append(name)
        if len(calls) == 3:
            raise stop("stopped")
        return real(self, name, *args, **kwargs)

    monkeypatch.setattr(h5py.Group, "create_dataset", stopped)
    with pytest.raises(stop):
        save_allennlp(model, tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert files_of(tmp_path) == before and sorted(p.name for p in tmp_path.iterdir()) == sorted(before)


@pytest.mark.parametrize("case", ["one path for both", "a folder", "a link"])
def test_an_output_that_would_lose_a_file_is_refused_before_anything_is_written(case, model, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    if case == "one path for both":
        weights = options
        said = f"the output {options} is the options file; write to another path"  # was: "is the input"
    elif case == "a folder":
        weights.mkdir()
        said = f"the output {weights} is a folder"
    else:
        options.symlink_to(tmp_path / "notes.txt")
        said = f"the output {options} is a symbolic link"
    with pytest.raises(FileExistsError) as refused:
        save_allennlp(model, options, weights)
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert not any(p.is_file() and not p.is_symlink() and p.name != "notes.txt" for p in tmp_path.iterdir())


def test_a_disk_without_room_for_the_weights_is_refused_before_writing(model, tmp_path, monkeypatch):
    monkeypatch.setattr(
        hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, FREE_SPACE_RESERVE + 1000)
    )
    with pytest.raises(OSError) as refused:
        save_allennlp(model, tmp_path / "options.json", tmp_path / "weights.hdf5")
    assert refused.value.errno == errno.ENOSPC and str(tmp_path / "weights.hdf5") in str(refused.value)
    assert list(tmp_path.iterdir()) == []


def test_quoted_home_paths_are_the_home_folders(model, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    save_allennlp(model, "~/options.json", "~/weights.hdf5")
    assert sorted(p.name for p in (tmp_path / "home").iterdir()) == ["options.json", "weights.hdf5"]
    assert list((tmp_path / "work").iterdir()) == []
