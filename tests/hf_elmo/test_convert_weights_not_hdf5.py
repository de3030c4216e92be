"""A weight file that is no HDF5 file at all (a text file, the options JSON given twice) is refused saying so and
naming the file to give, not as a damaged one (was: 'is not a readable HDF5 file (truncated or corrupt?): Unable to
synchronously open file (file signature not found)'); a file that starts as HDF5 but cannot be read still is."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize(
    "content", [b"the cat sat\n", b'{"lstm": {}}\n', b"PK\x03\x04 a zip"], ids=["text", "json", "zip"]
)
def test_a_weight_file_that_is_no_hdf5_file_is_refused_as_such(content, allennlp_fixture, tmp_path, capsys):
    weights = tmp_path / "weights.hdf5"
    weights.write_bytes(content)
    out = tmp_path / "out"
    assert main(["convert", str(allennlp_fixture / "options.json"), str(weights), str(out)]) == 2
    assert capsys.readouterr().err == (
        f"elmo convert: error: {weights} is not an HDF5 file (it does not start as one): give the biLM's weight "
        "file (AllenNLP's NAME_weights.hdf5, bilm-tf's dump_weights output)\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("content", [b"", b"\x89HDF\r\n\x1a\n garbage", b"\x89HD"], ids=["empty", "damaged", "cut"])
def test_a_weight_file_that_starts_as_hdf5_or_is_empty_is_refused_as_damaged(
    content, allennlp_fixture, tmp_path, capsys
):
    weights = tmp_path / "weights.hdf5"
    weights.write_bytes(content)
    assert main(["convert", str(allennlp_fixture / "options.json"), str(weights), str(tmp_path / "out")]) == 2
    assert f"{weights} is not a readable HDF5 file (truncated or corrupt?): " in capsys.readouterr().err
