"""``open_embeddings`` of an output whose settings record looks right but whose arrays are no float32 arrays of
the shape its recorded --layers and --pool make (or, in a sharded output, of another width than the first
shard's) refuses it at open, in one line naming the file (was: opened, and ``embeddings[line]`` returned the
array as it was, silently: an int8 array, a (2, 5) array for a line of (L+1, T, 2P) vectors). The check reads
each file's first line."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

from hf_elmo.embed import open_embeddings
from hf_elmo.embed.output import SENTENCE_TO_INDEX
from tests.hf_elmo.test_embed_safety import embed, write_text


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


def replace_first_line(path: Path, array: np.ndarray) -> str:
    """The first line's dataset of the output file ``path`` (as h5py lists them) replaced by ``array``; its name."""
    with h5py.File(path, "a") as handle:
        first = next(name for name in handle if name != SENTENCE_TO_INDEX)
        del handle[first]
        handle[first] = array
    return first


def first_shape(path: Path) -> tuple[int, ...]:
    with h5py.File(path, "r") as handle:
        return handle[next(name for name in handle if name != SENTENCE_TO_INDEX)].shape


@pytest.mark.parametrize(
    "layers, wrong, held, made",
    [
        ("all", lambda shape: np.zeros(shape, np.int8), "an array of int8, shape", "({}, T, {})"),
        ("all", lambda shape: np.zeros((2, 5), np.float32), "an array of float32, shape (2, 5)", "(L+1, T, 2P)"),
        ("top", lambda shape: np.zeros((*shape, 1), np.float32), "an array of float32, shape", "(T, 2P)"),
    ],
    ids=["int8", "too few dimensions", "too many dimensions"],
)
def test_a_file_whose_arrays_its_settings_do_not_make_is_refused_at_open(
    layers, wrong, held, made, model_dir, text, tmp_path
):
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir, "--layers", layers) == 0
    shape = first_shape(out)
    first = replace_first_line(out, wrong(shape))
    with pytest.raises(ValueError) as refused:
        open_embeddings(out)
    said = str(refused.value)
    assert said.startswith(f"{out} is damaged: its line {first} holds {held}") and "\n" not in said, said
    made = made.format(shape[0], shape[-1])  # the int8 array's depth and width are right: said
    assert f"(--layers {layers}, --pool none) make arrays of float32, shape {made}; make it again" in said, said


def test_a_shard_of_another_width_than_the_first_is_refused_at_open(model_dir, text, tmp_path):
    out = tmp_path / "out.hdf5"
    for shard in ("0/2", "1/2"):
        assert embed(text, out, model_dir, "--pool", "mean", "--shard", shard) == 0
    with open_embeddings(out) as embeddings:  # as written: opens
        depth, width = embeddings[0].shape
    second = tmp_path / "out.shard-1-of-2.hdf5"
    first = replace_first_line(second, np.zeros((depth, width + 1), np.float32))
    with pytest.raises(ValueError) as refused:
        open_embeddings(out)
    assert str(refused.value) == (
        f"{second} is damaged: its line {first} holds an array of float32, shape ({depth}, {width + 1}), where its "
        f"recorded settings (--layers all, --pool mean) make arrays of float32, shape ({depth}, {width}); make it "
        "again (elmo embed --overwrite), or open another file"
    )
