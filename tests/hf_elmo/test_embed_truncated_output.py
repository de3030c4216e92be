"""``open_embeddings`` of an output file that HDF5 cannot read (truncated, say by a full disk or a copy
cut short; or no HDF5 file), alone or as a shard through its index, is refused in one line naming
the file and what to do. Was: h5py's 'Unable to synchronously open file (truncated file: eof = ...)',
naming no file (which of the shards?). ``elmo embed`` refuses such a file in one line too."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.embed import open_embeddings
from tests.hf_elmo.test_embed_safety import embed, error_lines, write_text


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


def truncate(path: Path, keep: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def assert_names_in_one_line(error: BaseException, path: Path) -> None:
    message = str(error)
    assert "\n" not in message
    assert message.startswith(f"{path} cannot be read as HDF5 (Unable to synchronously open file (")
    assert message.endswith("make it again (elmo embed --overwrite), or open another file")


@pytest.mark.parametrize("keep", [0.01, 0.5, 0.99])
def test_a_truncated_output_file(keep, model_dir, text, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir) == 0
    truncate(out, keep)
    with pytest.raises(OSError) as opened:
        open_embeddings(out)
    assert_names_in_one_line(opened.value, out)


def test_a_truncated_shard(model_dir, text, tmp_path, capsys):
    out = tmp_path / "out.hdf5"
    for shard in ("0/2", "1/2"):
        assert embed(text, out, model_dir, "--shard", shard) == 0
    second = tmp_path / "out.shard-1-of-2.hdf5"
    truncate(second, 0.5)
    with pytest.raises(OSError) as opened:
        open_embeddings(tmp_path / "out.hdf5.index.json")
    assert_names_in_one_line(opened.value, second)

    (tmp_path / "out.shard-0-of-2.hdf5").unlink()
    capsys.readouterr()
    assert embed(text, out, model_dir, "--shard", "0/2") == 2  # the run of another shard refuses it too
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith(f"elmo embed: error: {second}, shard 1 of this output, cannot be read (")
    assert line.endswith("; delete it")


def test_no_hdf5_file(tmp_path):
    out = tmp_path / "out.hdf5"
    out.write_text("some text\n", encoding="utf-8")
    with pytest.raises(OSError) as opened:
        open_embeddings(out)
    assert_names_in_one_line(opened.value, out)
