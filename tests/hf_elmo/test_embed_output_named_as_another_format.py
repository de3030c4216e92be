"""An ``elmo embed`` (``embed_file``) OUTPUT named as a file of another format (``vectors.npy``, ``out.txt``,
``out.hdf5.gz``) is refused in one line before anything is written, naming the HDF5 name to give (was: an HDF5 file
written under that name, which numpy, a text editor or gzip then fail to read); HDF5's own names and a name without
a suffix are written as before."""

from __future__ import annotations

import h5py
import pytest

from hf_elmo.embed import embed_file
from tests.hf_elmo.test_embed import embed_cli

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture
def text(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("the cat sat\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("vectors.npy", "vectors.hdf5"),
        ("out.TXT", "out.hdf5"),
        ("out.hdf5.gz", "out.hdf5"),
        ("run.v2.npy", "run.v2.hdf5"),  # a dotted name keeps its parts
    ],
)
def test_an_output_named_as_another_format_is_refused_naming_the_hdf5_name(
    model_dir, text, tmp_path, capsys, name, instead
):
    out = tmp_path / name
    assert embed_cli(text, out, model_dir) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo embed: error: the output {out} is named as a {out.suffix} file, but embed writes an HDF5 file "
        f"(AllenNLP's layout): name it as one, e.g. {tmp_path / instead}"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


@pytest.mark.parametrize("name", ["out.h5", "out"])
def test_hdf5_names_and_a_name_without_suffix_are_written(model_dir, text, tmp_path, name):
    assert embed_cli(text, tmp_path / name, model_dir) == 0
    with h5py.File(tmp_path / name, "r") as handle:
        assert handle["0"].shape[-2] == 3


def test_embed_file_refuses_alike(model_dir, text, tmp_path):
    from hf_elmo import ElmoModel

    with pytest.raises(ValueError, match=r"named as a \.json file, but embed writes an HDF5 file"):
        embed_file(ElmoModel.from_pretrained(model_dir), text, tmp_path / "out.json")


def test_an_existing_file_of_another_format_is_refused_with_overwrite_and_kept(model_dir, text, tmp_path, capsys):
    out = tmp_path / "notes.txt"
    out.write_text("mine\n", encoding="utf-8")
    assert embed_cli(text, out, model_dir, "--overwrite") == 2
    assert "is named as a .txt file, but embed writes an HDF5 file" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "notes.txt"]
