"""``open_embeddings`` of an output file whose bytes are damaged inside (not truncated: its size is
right), and reading its lines, fail in one line naming the file, whatever h5py raises where: every
64-byte stretch of an output overwritten in turn. Was: h5py's ``KeyError`` ('Unable to synchronously
open object (message not aligned)') or ``RuntimeError`` ('Unable to get group info (unknown symbol
table entry cache type)'), naming no file."""

from __future__ import annotations

import numpy as np
import pytest

from hf_elmo.embed import open_embeddings
from tests.hf_elmo.test_embed_safety import embed, write_text


@pytest.fixture(scope="module")
def output(model_dir, tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("output")
    assert embed(write_text(folder / "text.txt"), folder / "out.hdf5", model_dir) == 0
    return (folder / "out.hdf5").read_bytes()


def test_an_output_damaged_anywhere_fails_in_one_line_naming_it(output, tmp_path):
    path, rng, said = tmp_path / "out.hdf5", np.random.default_rng(0), []
    for start in range(0, len(output), 64):
        damaged = bytearray(output)
        damaged[start : start + 64] = rng.integers(0, 256, 64, dtype=np.uint8).tobytes()
        path.write_bytes(bytes(damaged))
        try:
            with open_embeddings(path) as embeddings:
                for line in range(len(embeddings)):
                    embeddings[line]
        except (OSError, ValueError, IndexError) as err:
            message = str(err)
            assert "\n" not in message and str(path) in message, (start, message)
            said.append(message)
    assert any(f"{path} is damaged (" in message for message in said)  # h5py's errors reading a damaged object
