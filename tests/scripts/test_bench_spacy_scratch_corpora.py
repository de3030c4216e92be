"""scripts/bench_spacy.py writes the tasks' capped splits (``TASK.SPLIT.spacy``) in a scratch folder of its run,
removed however it ends, and only ``results.json`` in ``--output`` (was: the splits written there, over the user's
files of those names, through a link to one elsewhere, and left behind; a failed run left the folder it made)."""

from __future__ import annotations

import sys
import tempfile

import pytest

from tests.conftest import REPO, load_script

pytestmark = pytest.mark.usefixtures("shared")  # the tasks' data


@pytest.fixture
def bench(monkeypatch, tmp_path):
    """The script's module, its pipelines' runs replaced by one that records the splits it is given."""
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_spacy.py")
    module.given = []

    def run(task, with_elmo, paths, args):
        assert all(path.stat().st_size for path in paths.values())  # written, for the pipelines to read
        module.given.append(paths)
        return {"task": task, "pipeline": "baseline", "epoch_seconds": [1.0], "epoch_cpu_seconds": [1.0]}

    monkeypatch.setattr(module, "run", run)
    monkeypatch.setattr(module, "table", lambda results: "")
    monkeypatch.setattr(module.torch, "set_num_threads", lambda n: None)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return module


def _main(module, monkeypatch, output) -> None:
    argv = ["bench_spacy.py", "--elmo", "unused", "--tasks", "sst2", "--pipelines", "baseline"]
    monkeypatch.setattr(sys, "argv", [*argv, "--max-train", "5", "--max-eval", "5", "--output", str(output)])
    module.main()


def test_the_splits_go_in_a_scratch_folder_and_a_users_file_of_their_name_is_kept(bench, monkeypatch, tmp_path):
    output, mine = tmp_path / "out", tmp_path / "mine.spacy"
    output.mkdir()
    mine.write_text("my corpus")
    (output / "sst2.train.spacy").symlink_to(mine)
    _main(bench, monkeypatch, output)
    assert [path.parent for path in bench.given[0].values()] == [bench.given[0]["train"].parent] * 3
    assert not bench.given[0]["train"].parent.exists() and list((tmp_path / "tmp").iterdir()) == []
    assert mine.read_text() == "my corpus"
    assert sorted(path.name for path in output.iterdir()) == ["results.json", "sst2.train.spacy"]


def test_a_failed_run_leaves_neither_its_output_folder_nor_its_splits(bench, monkeypatch, tmp_path):
    def fails(*args):
        raise RuntimeError("a pipeline failed")

    monkeypatch.setattr(bench, "run", fails)
    with pytest.raises(RuntimeError, match="a pipeline failed"):
        _main(bench, monkeypatch, tmp_path / "new" / "out")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tmp"] and list((tmp_path / "tmp").iterdir()) == []
