"""A sharded ``elmo embed`` to an OUTPUT where a run without shards left its file is refused before
anything is written: its shards and index would stand beside that file, and ``open_embeddings(OUTPUT)``
(the README's way to read a sharded output) would open the old file, silently not the shards."""

from __future__ import annotations

import pytest

from hf_elmo.embed import open_embeddings
from tests.hf_elmo.test_embed import WORDS, embed_cli, read_all

pytestmark = pytest.mark.usefixtures("one_thread")


def test_shards_of_an_output_whose_whole_file_exists_are_refused(model_dir, tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text("\n".join(" ".join(WORDS[i : i + 3]) for i in range(6)) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "out.hdf5"
    assert embed_cli(text, out, model_dir, "--layers", "top") == 0
    whole = read_all(out)
    for extra in ((), ("--overwrite",)):
        assert embed_cli(text, out, model_dir, "--shard", "0/2", *extra) == 2
        err = capsys.readouterr().err
        assert err.strip() == (
            f"elmo embed: error: {out} exists (a run without shards wrote it): open_embeddings('{out}') would open it, "
            "not the index of these shards (out.hdf5.index.json); move or delete it, or write the shards to another "
            "output"
        )
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.hdf5"]  # no shard, index, lock or partial folder
    out.unlink()
    assert embed_cli(text, out, model_dir, "--shard", "0/2") == 0
    assert embed_cli(text, out, model_dir, "--shard", "1/2") == 0
    with open_embeddings(out) as embeddings:  # the shards' index
        assert embeddings[0].ndim == 3 and whole["0"].ndim == 2
