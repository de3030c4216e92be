"""A resumed ``elmo embed`` computes again a finished chunk's part whose lines are no arrays of the
run's: of another dtype or shape (width, layers), with other token counts, or no dataset at all (a
part edited by hand, or written by something else). Was: kept, so the output held its arrays as
they were, silently (an int8 (2, 5) array for a line of (3, T, 32) float32 vectors)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np
import pytest

import hf_elmo.embed.run
from tests.hf_elmo.test_embed import assert_same_file
from tests.hf_elmo.test_embed_safety import embed, killed_after_part, names, write_text


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


@pytest.fixture(scope="module")
def reference(model_dir, text, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "reference.hdf5"
    assert embed(text, out, model_dir) == 0
    return out


DAMAGES: dict[str, Callable[[np.ndarray], object]] = {
    "another dtype": lambda array: array.astype(np.float16),
    "another width": lambda array: array[..., :-1],
    "fewer layers": lambda array: array[:-1],
    "a token fewer": lambda array: array[:, :-1] if array.shape[1] > 1 else np.concatenate([array, array], axis=1),
    "no array of vectors": lambda array: np.zeros((2, 5), dtype=np.int8),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_part_whose_lines_are_no_arrays_of_the_run_is_computed_again(
    damage, model_dir, text, reference, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model_dir, "part-000001.hdf5")
    with h5py.File(tmp_path / "out.hdf5.partial" / "part-000000.hdf5", "a") as part:
        name = sorted(part)[0]
        array = part[name][()]
        del part[name]
        part[name] = DAMAGES[damage](array)
    capsys.readouterr()
    assert embed(text, out, model_dir) == 0
    assert "1 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)
    assert names(tmp_path) == ["out.hdf5"]


def test_a_part_holding_a_group_is_computed_again(model_dir, text, reference, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.hdf5"
    killed_after_part(monkeypatch, text, out, model_dir, "part-000001.hdf5")
    with h5py.File(tmp_path / "out.hdf5.partial" / "part-000000.hdf5", "a") as part:
        name = sorted(part)[0]
        del part[name]
        part.create_group(name)
    capsys.readouterr()
    assert embed(text, out, model_dir) == 0
    assert "1 of 6 chunks were done by an earlier run" in capsys.readouterr().out
    assert_same_file(out, reference)


@pytest.mark.parametrize(
    "options", [[], ["--pool", "mean"], ["--layers", "top"], ["--layers", "average", "--pool", "mean"]]
)
def test_the_parts_of_every_kind_of_run_are_kept(options, model_dir, text, tmp_path, capsys, monkeypatch):
    """The check of a part's arrays takes those of the run's --layers and --pool as its own."""
    out = tmp_path / "out.hdf5"
    write_part = hf_elmo.embed.run._write_part

    def write_then_stop(path, items, bar):
        write_part(path, items, bar)
        if path.name == "part-000001.hdf5":
            raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(hf_elmo.embed.run, "_write_part", write_then_stop)
        assert embed(text, out, model_dir, *options) == 130
    capsys.readouterr()
    assert embed(text, out, model_dir, *options) == 0
    assert "2 of 6 chunks were done by an earlier run" in capsys.readouterr().out
