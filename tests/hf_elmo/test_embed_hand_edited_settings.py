"""A shard whose settings record is a JSON object edited by hand (a setting missing, or of another
type) differs from the other shards' in one line naming the setting, for ``elmo embed`` adding a shard
and for ``open_embeddings`` of the index. Was: ``KeyError: 'input_sha256'`` or ``TypeError: 'int' object
is not subscriptable`` from ``differing_setting``."""

from __future__ import annotations

import json
from pathlib import Path

import h5py
import pytest

from hf_elmo.embed import open_embeddings
from hf_elmo.embed.output import SETTINGS_ATTRIBUTE
from tests.hf_elmo.test_embed_safety import embed, error_lines, write_text

EDITS = {
    "input missing": ("input_sha256", None, "input (none; this run: SHA-256 "),
    "input a number": ("input_sha256", 5, "input (SHA-256 5...; this run: SHA-256 "),
    "model digest missing": ("model_sha256", None, "model (none; this run: "),
    "model digest a list": ("model_sha256", [1], "model ("),
}


@pytest.fixture(scope="module")
def text(tmp_path_factory) -> Path:
    return write_text(tmp_path_factory.mktemp("text") / "text.txt")


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_hand_edited_shard_differs_in_one_line(edit, model_dir, text, tmp_path, capsys):
    key, value, said = EDITS[edit]
    out = tmp_path / "out.hdf5"
    assert embed(text, out, model_dir, "--shard", "0/2") == 0
    first = tmp_path / "out.shard-0-of-2.hdf5"
    with h5py.File(first, "a") as handle:
        settings = json.loads(handle.attrs[SETTINGS_ATTRIBUTE])
        if value is None:
            del settings[key]
        else:
            settings[key] = value
        handle.attrs[SETTINGS_ATTRIBUTE] = json.dumps(settings)
    capsys.readouterr()
    assert embed(text, out, model_dir, "--shard", "1/2") == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith(f"elmo embed: error: {first}, shard 0 of this output, differs in {said}"), line

    assert embed(text, out, model_dir, "--shard", "1/2", "--overwrite") == 0
    with pytest.raises(ValueError, match=r"its shards differ in (input|model) \(") as opened:
        open_embeddings(tmp_path / "out.hdf5.index.json")
    assert "\n" not in str(opened.value)
