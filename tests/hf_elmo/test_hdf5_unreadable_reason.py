"""An HDF5 file that h5py cannot open for a reason of the system's (a permission) is refused with that reason
without Python's ``[Errno N]`` (``messages.error_reason``): the original weights, the softmax dump and another shard
of ``elmo embed``'s output. Was: ``... is not a readable HDF5 file (truncated or corrupt?): [Errno 13] Unable to
synchronously open file (...)``."""

from __future__ import annotations

import errno

import h5py
import pytest

from hf_elmo import ElmoForBidirectionalLM, ElmoModel
from hf_elmo.convert import ElmoWeightsError
from hf_elmo.embed.run import _check_other_shards
from hf_elmo.embed.shards import Shard

#: What h5py raises for a file it may not open (its FileNotFoundError's form, with errno 13).
H5PY_DENIED = (
    "Unable to synchronously open file (unable to open file: name = 'x.hdf5', errno = 13, error message = "
    "'Permission denied', flags = 0, o_flags = 0)"
)


def deny(monkeypatch, denied) -> None:
    """Make ``h5py.File`` of ``denied`` fail as h5py does for a file it may not open."""
    opened = h5py.File

    def file(name, *args, **kwargs):
        if str(name) == str(denied):
            raise PermissionError(errno.EACCES, H5PY_DENIED)
        return opened(name, *args, **kwargs)

    monkeypatch.setattr(h5py, "File", file)


def test_original_weights_that_cannot_be_opened(allennlp_fixture, monkeypatch):
    weights = allennlp_fixture / "lm_weights.hdf5"
    deny(monkeypatch, weights)
    with pytest.raises(ElmoWeightsError) as refused:
        ElmoModel.from_allennlp(allennlp_fixture / "options.json", weights)
    assert str(refused.value) == f"{weights} is not a readable HDF5 file (truncated or corrupt?): {H5PY_DENIED}"


def test_a_softmax_file_that_cannot_be_opened(allennlp_fixture, monkeypatch):
    softmax = allennlp_fixture / "elmo_softmax_weights.hdf5"
    deny(monkeypatch, softmax)
    with pytest.raises(ElmoWeightsError) as refused:
        ElmoForBidirectionalLM.from_allennlp_with_softmax(
            allennlp_fixture / "options.json", allennlp_fixture / "lm_weights.hdf5", softmax
        )
    assert str(refused.value) == f"{softmax} holds no readable softmax/W and softmax/b: {H5PY_DENIED}"


def test_another_shard_that_cannot_be_opened(tmp_path, monkeypatch):
    output = tmp_path / "out.hdf5"
    other = Shard(1, 2).output_file(output)
    other.write_bytes(b"")
    deny(monkeypatch, other)
    with pytest.raises(ValueError) as refused:
        _check_other_shards(output, Shard(0, 2), {})
    assert str(refused.value) == f"{other}, shard 1 of this output, cannot be read ({H5PY_DENIED}); delete it"
