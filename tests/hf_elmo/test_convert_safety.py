"""`elmo convert` never deletes its inputs, refuses NaN weights and badly typed options fields,
and answers a full or unwritable disk, or a killed earlier run, with one line and no leftovers."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import h5py
import numpy as np
import pytest

import hf_elmo.fileio
import hf_elmo.loading
from hf_elmo.cli import main
from tests.hf_elmo.test_fileio import CANNOT_WRITE, lock_held_by_another_process, refuse_writes_in, unwritable
from tests.numpy_elmo import small_options, write_random_original

DiskUsage = namedtuple("DiskUsage", "total used free")
# `elmo convert` that SIGKILLs itself while writing the model card (the folder half built).
KILL_WHILE_BUILDING = """
import os, signal, sys
import hf_elmo.model_card
hf_elmo.model_card.write_model_card = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from hf_elmo.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture()
def original(tmp_path) -> Path:
    folder = tmp_path / "original"
    write_random_original(folder, small_options(), seed=3)
    return folder


def convert(folder: Path, out: Path, *extra: str) -> int:
    return main(["convert", str(folder / "options.json"), str(folder / "weights.hdf5"), str(out), *extra])


def error_of(capsys) -> str:
    """The one error line on stderr (progress bars aside)."""
    err = capsys.readouterr().err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "%|" not in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("where", ["the inputs' folder", "its parent"])
def test_an_output_folder_holding_the_inputs_is_refused_even_with_overwrite(where, original, capsys):
    before = snapshot(original)
    out = original if where == "the inputs' folder" else original.parent
    assert convert(original, out, "--overwrite") == 2
    assert "holds the input" in error_of(capsys)
    assert snapshot(original) == before


def test_an_output_that_is_a_file_is_refused_even_with_overwrite(original, tmp_path, capsys):
    out = tmp_path / "model"
    out.write_text("mine")
    assert convert(original, out, "--overwrite") == 2
    assert f"{out} is a file, not a folder" in error_of(capsys)
    assert out.read_text() == "mine"


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_non_finite_weights_are_refused_naming_the_dataset(value, original, tmp_path, capsys):
    with h5py.File(original / "weights.hdf5", "a") as handle:
        data = handle["CNN_proj/W_proj"][...]
        data[0, :3] = value
        handle["CNN_proj/W_proj"][...] = data
    assert convert(original, tmp_path / "model") == 2
    assert "dataset 'CNN_proj/W_proj' holds 3 NaN or infinite values" in capsys.readouterr().err
    assert not (tmp_path / "model").exists()


def _point_outside(weights: Path, name: str, other: Path, how: str) -> None:
    """Replace ``weights``'s dataset ``name`` by one whose values are ``other``'s (``how``)."""
    with h5py.File(weights, "a") as handle:
        shape = handle[name].shape
        del handle[name]
        if how == "external link":
            handle[name] = h5py.ExternalLink(str(other), name)
        elif how == "soft link":
            handle["elsewhere"] = h5py.ExternalLink(str(other), "/")
            handle[name] = h5py.SoftLink(f"/elsewhere/{name}")
        elif how == "external storage":
            handle.create_dataset(name, shape=shape, dtype="<f4", external=[(str(other), 0, h5py.h5f.UNLIMITED)])
        else:
            layout = h5py.VirtualLayout(shape=shape, dtype="f4")
            layout[:] = h5py.VirtualSource(str(other), name, shape=shape)
            handle.create_virtual_dataset(name, layout)


@pytest.mark.parametrize("how", ["external link", "soft link", "external storage", "virtual dataset"])
def test_a_weight_file_whose_dataset_reads_another_file_is_refused_naming_the_dataset(how, original, tmp_path, capsys):
    other = tmp_path / "other.hdf5"
    shutil.copy(original / "weights.hdf5", other)
    _point_outside(original / "weights.hdf5", "CNN_proj/b_proj", other, how)
    assert convert(original, tmp_path / "model") == 2
    err = capsys.readouterr().err
    named = {
        "external link": "'CNN_proj/b_proj' is an external link to",
        "soft link": "'CNN_proj/b_proj' is a soft link to /elsewhere/CNN_proj/b_proj",
    }.get(how, "dataset 'CNN_proj/b_proj' keeps its values outside the file")
    assert named in err and "no other file is read" in err, err
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize("how", ["external link", "declared shape"])
def test_a_softmax_file_that_reads_another_file_or_claims_too_many_words_is_refused_before_its_values(
    how, original, tmp_path
):
    from hf_elmo import ElmoForBidirectionalLM
    from hf_elmo.convert import ElmoWeightsError

    softmax, other = tmp_path / "softmax.hdf5", tmp_path / "other.hdf5"
    with h5py.File(other, "w") as handle:
        handle["softmax/W"] = np.zeros((10, 8), np.float32)
    with h5py.File(softmax, "w") as handle:
        if how == "external link":
            handle["softmax/W"] = h5py.ExternalLink(str(other), "softmax/W")
            handle["softmax/b"] = np.zeros(10, np.float32)
        else:  # 320 MB of values that the file never stores (chunks never written read as zeros)
            handle.create_dataset("softmax/W", shape=(10_000_001, 8), dtype="f4", chunks=(1024, 8))
            handle.create_dataset("softmax/b", shape=(10_000_001,), dtype="f4", chunks=(1024,))
    message = "is an external link to" if how == "external link" else "softmax/W has 10,000,001 rows"
    with pytest.raises(ElmoWeightsError, match=f"^{softmax}: .*{message}"):
        ElmoForBidirectionalLM.from_allennlp_with_softmax(original / "options.json", original / "weights.hdf5", softmax)


@pytest.mark.parametrize("name, value", [("softmax/W", math.nan), ("softmax/b", math.inf), ("softmax/b", 1e39)])
def test_a_softmax_with_non_finite_values_is_refused_naming_the_dataset(name, value, original, tmp_path, recwarn):
    """As the biLM's weights are (1e39, a finite float64, is inf in float32), with no other word
    (was: numpy's "RuntimeWarning: overflow encountered in cast" before it). Was: loaded, an LM whose
    every log-probability is NaN."""
    from hf_elmo import ElmoForBidirectionalLM
    from hf_elmo.convert import ElmoWeightsError

    projection_dim = json.loads((original / "options.json").read_text())["lstm"]["projection_dim"]
    softmax = tmp_path / "softmax.hdf5"
    with h5py.File(softmax, "w") as handle:
        handle["softmax/W"] = np.zeros((10, projection_dim), np.float64)
        handle["softmax/b"] = np.zeros(10, np.float64)
        handle[name][1] = value
    dataset_size = 10 * projection_dim if name == "softmax/W" else 10
    bad = projection_dim if name == "softmax/W" else 1
    message = f"{softmax}: dataset {name!r} holds {bad:,} NaN or infinite values of {dataset_size:,}"
    with pytest.raises(ElmoWeightsError, match=f"^{re.escape(message)}$"):
        ElmoForBidirectionalLM.from_allennlp_with_softmax(original / "options.json", original / "weights.hdf5", softmax)
    assert [f"{w.category.__name__}: {w.message}" for w in recwarn] == []


def _unstored(handle: h5py.File, name: str, values: np.ndarray, how: str) -> None:
    """Create in ``handle`` the dataset ``name`` of ``values``'s shape, whose values the file does not
    store (``how``)."""
    if how == "never written":  # created, then a conversion cut short
        handle.create_dataset(name, shape=values.shape, dtype="<f4")
    elif how == "chunks never written":  # its first half of rows written, the rest never
        dataset = handle.create_dataset(name, shape=values.shape, dtype="<f4", chunks=(1, *values.shape[1:]))
        dataset[: len(values) // 2] = values[: len(values) // 2]
    else:  # "a bomb": zeros, gzip-compressed about 1,000x
        handle.create_dataset(name, data=np.zeros(values.shape, "<f4"), compression="gzip", compression_opts=9)


@pytest.fixture()
def values_read(monkeypatch) -> list[str]:
    """The names of the hdf5 datasets whose values are read (``dataset[...]``)."""
    read: list[str] = []
    get = h5py.Dataset.__getitem__

    def recorded(self, *args, **kwargs):
        read.append(self.name.lstrip("/"))
        return get(self, *args, **kwargs)

    monkeypatch.setattr(h5py.Dataset, "__getitem__", recorded)
    return read


#: What each way of ``_unstored`` is refused with, for a dataset of ``rows`` rows (1 MB in all).
UNSTORED = {
    "never written": "was never written in full: the file holds none of its values",
    "chunks never written": "was never written in full: the file holds {half:,} of its {rows:,} chunks",
}
#: What ``_unstored``'s "a bomb" is refused with where the file, not the options, sets its shape (softmax/W).
BOMB = {"a bomb": "declares 1,048,576 bytes of values stored in"}


@pytest.mark.parametrize("how", list(UNSTORED))
def test_a_weight_dataset_whose_values_the_file_does_not_store_is_refused_before_they_are_read(
    how, tmp_path, capsys, values_read
):
    """A dataset created but never written, or some of whose chunks never were, reads back as its fill
    value (zeros). Was: converted, a model with zero weights."""
    original = tmp_path / "original"
    write_random_original(original, small_options(dim=4096), seed=3)
    name = "RNN_0/RNN/MultiRNNCell/Cell1/LSTMCell/W_0"  # (16, 16384) float32: 1 MB
    with h5py.File(original / "weights.hdf5", "a") as handle:
        shape = handle[name].shape
        del handle[name]
        _unstored(handle, name, np.ones(shape, np.float32), how)
    assert convert(original, tmp_path / "model") == 2
    err = capsys.readouterr().err
    message = UNSTORED[how].format(half=8, rows=16)
    assert f"{original / 'weights.hdf5'}" in err and f"dataset {name!r} {message}" in err, err
    assert name not in values_read
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize("how", [*UNSTORED, *BOMB])
def test_a_softmax_whose_values_the_file_does_not_store_is_refused_before_they_are_read(
    how, original, tmp_path, values_read
):
    """As the biLM's weights are (a softmax/W of 32,768 words, 1 MB), and a softmax/W compressed
    beyond ``MAX_INFLATION``: its number of words is the file's, not the options', so a few KB could
    declare gigabytes. Was: loaded, an LM whose softmax is zeros (every word equally likely)."""
    from hf_elmo import ElmoForBidirectionalLM
    from hf_elmo.convert import ElmoWeightsError

    projection_dim = json.loads((original / "options.json").read_text())["lstm"]["projection_dim"]
    softmax = tmp_path / "softmax.hdf5"
    with h5py.File(softmax, "w") as handle:
        _unstored(handle, "softmax/W", np.ones((32_768, projection_dim), np.float32), how)
        handle["softmax/b"] = np.zeros(32_768, np.float32)
    message = f"{softmax}: dataset 'softmax/W' " + {**UNSTORED, **BOMB}[how].format(half=16_384, rows=32_768)
    with pytest.raises(ElmoWeightsError, match=f"^{re.escape(message)}"):
        ElmoForBidirectionalLM.from_allennlp_with_softmax(original / "options.json", original / "weights.hdf5", softmax)
    assert "softmax/W" not in values_read


def test_all_zero_gzip_compressed_weights_of_the_shapes_the_options_declare_load(tmp_path, capsys, values_read):
    """Zeros compress far beyond ``MAX_INFLATION`` (1 MB of them to about 1 KB): a zero bias, an
    untrained layer. A biLM dataset's shape is checked against the options before its values are
    read, so its size is the model's, not the file's to choose; and a softmax/b of zeros beside a
    trained softmax/W (whose rows it must match). Was: refused as "an hdf5 bomb?"."""
    from hf_elmo import ElmoForBidirectionalLM

    original = tmp_path / "original"
    write_random_original(original, small_options(dim=4096), seed=3)
    name = "RNN_0/RNN/MultiRNNCell/Cell1/LSTMCell/W_0"  # (16, 16384) float32: 1 MB
    with h5py.File(original / "weights.hdf5", "a") as handle:
        shape = handle[name].shape
        del handle[name]
        _unstored(handle, name, np.ones(shape, np.float32), "a bomb")
        assert handle[name].nbytes > 100 * handle[name].id.get_storage_size()
    assert convert(original, tmp_path / "model") == 0, capsys.readouterr().err
    assert name in values_read
    softmax = tmp_path / "softmax.hdf5"
    with h5py.File(softmax, "w") as handle:
        handle["softmax/W"] = np.random.default_rng(0).normal(size=(32_768, 8)).astype(np.float32)
        handle.create_dataset("softmax/b", data=np.zeros(32_768, "<f4"), compression="gzip", compression_opts=9)
    model = ElmoForBidirectionalLM.from_allennlp_with_softmax(
        original / "options.json", original / "weights.hdf5", softmax
    )
    assert not model.softmax.bias.any()


#: Datasets of a weight's shape that hold no numbers, with the value written to each: 8 MB declared
#: in a few KB (a fixed-length string of 1 MB a value), or a size their shape does not bound
#: (variable-length arrays).
NOT_NUMBERS = {"|S1000000": ("S1000000", b"x"), "object": (h5py.vlen_dtype("f4"), np.zeros(3, np.float32))}


@pytest.mark.parametrize("dtype", list(NOT_NUMBERS))
def test_a_weight_dataset_that_holds_no_numbers_is_refused_before_its_values_are_read(
    dtype, original, tmp_path, capsys, values_read
):
    """A weight's values are numbers, whose size its shape bounds; a string or variable-length
    dataset's size its shape does not. Was: refused as a bomb (strings) or a traceback
    (ValueError: setting an array element with a sequence)."""
    with h5py.File(original / "weights.hdf5", "a") as handle:
        del handle["CNN_proj/b_proj"]
        kind, value = NOT_NUMBERS[dtype]
        dataset = handle.create_dataset("CNN_proj/b_proj", shape=(8,), dtype=kind, compression="gzip")
        for index in range(8):
            dataset[index] = value
    assert convert(original, tmp_path / "model") == 2
    err = capsys.readouterr().err
    assert f"dataset 'CNN_proj/b_proj' holds values of type {dtype}, not numbers" in err, err
    assert "Traceback" not in err
    assert "CNN_proj/b_proj" not in values_read
    assert not (tmp_path / "model").exists()


def _shapeless(handle: h5py.File, name: str, how: str) -> None:
    """Create in ``handle`` at ``name`` an hdf5 object with no shape (``how``)."""
    if how == "a group":
        handle.create_group(f"{name}/values")
    else:  # "an empty dataspace"
        handle.create_dataset(name, data=h5py.Empty("<f4"))


SHAPELESS = "is a group or a dataset of no values (an empty dataspace), not an array"


@pytest.mark.parametrize("how", ["a group", "an empty dataspace"])
def test_a_weight_without_a_shape_is_refused_naming_it(how, original, tmp_path, capsys):
    """A group, or a dataset of h5py.Empty, where a weight should be. Was: a traceback
    (AttributeError: 'Group' object has no attribute 'shape'; TypeError: 'NoneType' object is not iterable)."""
    with h5py.File(original / "weights.hdf5", "a") as handle:
        del handle["CNN_proj/b_proj"]
        _shapeless(handle, "CNN_proj/b_proj", how)
    assert convert(original, tmp_path / "model") == 2
    err = capsys.readouterr().err
    assert f"'CNN_proj/b_proj' {SHAPELESS}; options imply a dataset of shape (8,)" in err and "Traceback" not in err
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize("how", ["a group", "an empty dataspace"])
def test_a_softmax_without_a_shape_is_refused_naming_it(how, original, tmp_path):
    """As the biLM's weights are. Was: a traceback (AttributeError, TypeError)."""
    from hf_elmo import ElmoForBidirectionalLM
    from hf_elmo.convert import ElmoWeightsError

    softmax = tmp_path / "softmax.hdf5"
    with h5py.File(softmax, "w") as handle:
        handle["softmax/W"] = np.zeros((10, 8), np.float32)
        _shapeless(handle, "softmax/b", how)
    message = f"{softmax}: 'softmax/b' {SHAPELESS}"
    with pytest.raises(ElmoWeightsError, match=f"^{re.escape(message)}$"):
        ElmoForBidirectionalLM.from_allennlp_with_softmax(original / "options.json", original / "weights.hdf5", softmax)


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda o: o["lstm"].update(dim=64.7),
            "options field lstm.dim must be an integer in 1..16384, got the float 64.7",
        ),
        (
            lambda o: o["char_cnn"]["embedding"].update(dim="abc"),
            "options field char_cnn.embedding.dim must be an integer in 1..1024, got the str 'abc'",
        ),
        (
            lambda o: o["char_cnn"].update(filters=[[1]]),
            "options field char_cnn.filters must be a list of [width, n_channels] pairs, "
            "e.g. [[1, 32], [2, 32], [3, 64]]; filter 0 is the list [1]",
        ),
        (
            lambda o: o["char_cnn"].update(filters=[[1, 4], [2, "8"]]),
            "options field char_cnn.filters[1] n_channels must be an integer in 1..8192, got the str '8'",
        ),
        (
            lambda o: o["lstm"].update(n_layers=True),
            "options field lstm.n_layers must be an integer in 1..16, got the bool True",
        ),
        (
            lambda o: o["lstm"].update(cell_clip="big"),
            "options field lstm.cell_clip must be a positive finite number, or null for no clipping, got the str 'big'",
        ),
    ],
)
def test_badly_typed_options_fields_are_named_with_the_file(edit, message, original, tmp_path, capsys):
    options = json.loads((original / "options.json").read_text())
    edit(options)
    (original / "options.json").write_text(json.dumps(options))
    assert convert(original, tmp_path / "model") == 2
    line = error_of(capsys)
    assert f"{original / 'options.json'}: {message}" in line
    assert not (tmp_path / "model").exists()


def test_paths_that_are_folders_say_so(original, tmp_path, capsys):
    weights = str(original / "weights.hdf5")
    assert main(["convert", str(original), weights, str(tmp_path / "m")]) == 2
    assert f"the options path {original} is a folder" in error_of(capsys)
    assert main(["convert", str(original / "options.json"), str(original), str(tmp_path / "m")]) == 2
    assert f"the weight path {original} is a folder" in error_of(capsys)


def test_a_full_disk_is_one_line_and_leaves_nothing(original, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, 10**6))
    assert convert(original, tmp_path / "model") == 2
    assert error_of(capsys).startswith(f"elmo convert: error: no space left on the disk of {tmp_path} for ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["original"]


def test_a_really_full_disk_is_one_line_and_leaves_nothing(original, tmp_path, capsys):
    """A 4 MiB tmpfs (root only): safetensors used to fail with a traceback."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], capture_output=True).returncode
    ):
        pytest.skip("needs root and tmpfs to mount a small disk")
    try:
        assert convert(original, disk / "model") == 2
        assert "no space left" in error_of(capsys)
        assert not any(disk.iterdir())
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_an_unwritable_folder_is_one_line(original, tmp_path, capsys):
    with unwritable(tmp_path / "ro") as folder:
        assert convert(original, folder / "model") == 2
        assert f"cannot write {folder / 'model'}: {folder} is not writable" in error_of(capsys)


@pytest.mark.parametrize("code", CANNOT_WRITE)
@pytest.mark.parametrize("under", ["", "new/"])
def test_an_output_on_a_read_only_file_system_or_unwritable_folder_is_one_line_naming_it_before_loading(
    code, under, original, tmp_path, capsys, monkeypatch
):
    """Was: '[Errno 30] Read-only file system: '.../.model.building-XXXXXXXX'' (the staging folder) after
    the model was read, '[Errno 1] Operation not permitted: '.../new'' for a new folder under it, and a
    read-only file system told as 'Permission denied' by the check."""
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / under / "model"

    def not_read(*args, **kwargs):
        raise AssertionError("the model was read before the output was checked")

    monkeypatch.setattr(hf_elmo.loading, "load_allennlp", not_read)
    refuse_writes_in(monkeypatch, folder, code)
    assert convert(original, out) == 2
    assert error_of(capsys) == (
        f"elmo convert: error: cannot write {out}: {folder} is not writable ({os.strerror(code)})"
    )
    assert list(folder.iterdir()) == []


def test_a_staging_folder_left_by_a_killed_convert_is_removed_by_the_next(original, tmp_path):
    out = tmp_path / "model"
    command = ["convert", str(original / "options.json"), str(original / "weights.hdf5"), str(out)]
    killed = subprocess.run(
        [sys.executable, "-c", KILL_WHILE_BUILDING, *command], capture_output=True, text=True, timeout=300
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".model.")]
    assert len(left) == 1 and (left[0] / "config.json").exists()  # what the issue saw
    live = tmp_path / ".model.building-live0000"  # a concurrent convert's, still being built
    live.mkdir()
    with lock_held_by_another_process(live):
        assert main(command) == 0
        assert sorted(p.name for p in tmp_path.iterdir()) == [".model.building-live0000", "model", "original"]
    assert (out / "config.json").exists()


def test_overwrite_replaces_the_folder_through_a_rename_leaving_no_leftovers(original, tmp_path):
    out = tmp_path / "model"
    assert convert(original, out) == 0
    first = snapshot(out)
    shutil.copy(original / "options.json", tmp_path / "keep.json")
    with h5py.File(original / "weights.hdf5", "a") as handle:
        handle["CNN_proj/b_proj"][...] = np.ones_like(handle["CNN_proj/b_proj"][...])
    assert convert(original, out, "--overwrite") == 0
    assert snapshot(out)["model.safetensors"] != first["model.safetensors"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json", "model", "original"]


def test_overwrite_never_replaces_a_folder_that_is_not_an_earlier_output(original, tmp_path, capsys):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "thesis.tex").write_text("mine")
    assert convert(original, out, "--overwrite") == 2
    assert f"{out} is not empty and holds no earlier output of elmo" in error_of(capsys)
    assert snapshot(out) == {"thesis.tex": b"mine"}


def test_overwrite_never_replaces_an_export_with_a_converted_model(original, tmp_path, capsys):
    out = tmp_path / "served"
    out.mkdir()
    (out / "elmo_export.json").write_text('{"format": "onnx"}')
    (out / "model.onnx").write_bytes(b"graph")
    assert convert(original, out, "--overwrite") == 2
    assert error_of(capsys).startswith(
        f"elmo convert: error: {out} holds an ELMo export (elmo_export.json), not an earlier ELMo model "
        "(config.json), so --overwrite does not replace it; write the model to another folder"
    )
    assert snapshot(out) == {"elmo_export.json": b'{"format": "onnx"}', "model.onnx": b"graph"}


def test_overwrite_keeps_an_earlier_output_holding_files_that_elmo_did_not_write(original, tmp_path, capsys):
    out = tmp_path / "model"
    assert convert(original, out) == 0
    (out / "NOTES.txt").write_text("mine")
    (out / "embeddings.hdf5").write_bytes(b"vectors")  # elmo embed writes where it is told
    before = snapshot(out)
    assert convert(original, out, "--overwrite") == 2
    assert error_of(capsys) == (
        f"elmo convert: error: {out} holds files that elmo did not write (NOTES.txt, embeddings.hdf5), which "
        "--overwrite would delete with the folder; move them out of it, or write to another folder"
    )
    assert snapshot(out) == before


@pytest.mark.parametrize("out", [".", "full path", ".."])
def test_the_current_folder_and_its_parents_are_refused_even_with_overwrite(
    out, original, tmp_path, capsys, monkeypatch
):
    here = tmp_path / "cwdtest" / "sub"
    here.mkdir(parents=True)
    (here / "thesis.tex").write_text("mine")
    monkeypatch.chdir(here)
    assert convert(original, here if out == "full path" else Path(out), "--overwrite") == 2
    assert "is the current folder or holds it; pick a new or empty folder" in error_of(capsys)
    assert snapshot(here) == {"thesis.tex": b"mine"}


def test_a_symlinked_output_folder_is_refused_leaving_the_link_and_its_target(original, tmp_path, capsys):
    target = tmp_path / "bigdisk" / "target"
    target.mkdir(parents=True)
    link = tmp_path / "linkout"
    link.symlink_to(target)
    assert convert(original, link, "--overwrite") == 2
    assert f"the output folder {link} is a symbolic link (to {target})" in error_of(capsys)
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["bigdisk", "linkout", "original"]


def test_an_output_under_a_file_names_the_file(original, tmp_path, capsys):
    (tmp_path / "afile2").write_text("mine")
    assert convert(original, tmp_path / "afile2" / "out") == 2
    assert f"{tmp_path / 'afile2'} is a file, not a folder" in error_of(capsys)
    assert (tmp_path / "afile2").read_text() == "mine"
