"""An ``elmo embed`` without shards to an OUTPUT where a sharded run left its index is refused before
anything is written, ``--overwrite`` or not (as a sharded run beside a whole run's file is: the file
that ``--overwrite`` replaces is the run's own): the old index and shards would stand beside the new
file, and ``open_embeddings(OUTPUT.index.json)`` would silently go on reading the old shards."""

from __future__ import annotations

import pytest

from hf_elmo.embed import open_embeddings
from tests.hf_elmo.test_embed import WORDS, embed_cli

pytestmark = pytest.mark.usefixtures("one_thread")


def test_a_whole_output_beside_a_sharded_runs_index_is_refused(model_dir, tmp_path, capsys):
    text = tmp_path / "text.txt"
    text.write_text("\n".join(" ".join(WORDS[i : i + 3]) for i in range(6)) + "\n", encoding="utf-8")
    out = tmp_path / "out" / "out.hdf5"
    index = out.with_name("out.hdf5.index.json")
    for shard in ("0/2", "1/2"):
        assert embed_cli(text, out, model_dir, "--shard", shard, "--layers", "top") == 0
    sharded = sorted(p.name for p in out.parent.iterdir())
    assert sharded == ["out.hdf5.index.json", "out.shard-0-of-2.hdf5", "out.shard-1-of-2.hdf5"]
    for extra in ((), ("--overwrite",)):
        assert embed_cli(text, out, model_dir, *extra) == 2
        err = capsys.readouterr().err
        assert err.strip() == (
            f"elmo embed: error: {index} exists (a sharded run wrote it): open_embeddings('{index}') would go on "
            "reading its shards, not this run's file; move or delete it and its shard files, or write to another "
            "output"
        )
    assert sorted(p.name for p in out.parent.iterdir()) == sharded  # no file, lock or partial folder
    index.unlink()
    assert embed_cli(text, out, model_dir) == 0
    with open_embeddings(out) as embeddings:  # the whole run's file
        assert len(embeddings) == 6 and embeddings[0].ndim == 3
