"""scripts/prepare_pretrain_en.py writes in a hidden folder of its own and moves its files into place at the end:
files of the user's named as its temporary files were (``train.txt.tmp``, ``wiki_00.train.txt``) are kept, a run
stopped part-way leaves the earlier outputs and nothing of its own, and an output that is a folder, or an output
folder that is a file, is one line before anything is read."""

from __future__ import annotations

import pytest

from tests.conftest import load_script
from tests.scripts.test_prepare_pretrain_en import write_shard

prepare = load_script("scripts/prepare_pretrain_en.py")


class InlinePool:
    """``multiprocessing.Pool`` run in this process (the test's monkeypatches apply; no process to start)."""

    def __init__(self, processes: int, **settings: object) -> None:  # settings: the workers' initializer
        pass

    def __enter__(self) -> InlinePool:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map(self, function, jobs, chunksize=1):
        return [function(job) for job in jobs]


@pytest.fixture(autouse=True)
def inline_pool(monkeypatch):
    monkeypatch.setattr(prepare, "Pool", InlinePool)


def test_files_named_as_its_temporary_files_were_are_kept(tmp_path):
    """Was: written over (OUT/train.txt.tmp, OUT/wiki_00.train.txt) and then removed."""
    write_shard(tmp_path / "raw", paragraphs=3)
    out = tmp_path / "tok"
    out.mkdir()
    for name in ("train.txt.tmp", "wiki_00.train.txt"):
        (out / name).write_text("mine")
    prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1"])
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["train.txt", "valid.txt", "test.txt", "prepare.json", "train.txt.tmp", "wiki_00.train.txt"]
    )
    assert (out / "train.txt.tmp").read_text() == (out / "wiki_00.train.txt").read_text() == "mine"


def test_a_run_stopped_part_way_leaves_the_earlier_outputs_and_nothing_of_its_own(tmp_path, monkeypatch):
    """Was: valid.txt.tmp and the shard's parts left in the output folder."""
    write_shard(tmp_path / "raw", paragraphs=3)
    out = tmp_path / "tok"
    prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1"])
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real_open = open
    opened = []

    def stopping_open(path, mode="r", *args, **kwargs):
        if "w" in mode and str(path).endswith("valid.txt"):
            opened.append(path)
            raise KeyboardInterrupt
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", stopping_open)
    with pytest.raises(KeyboardInterrupt):
        prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1"])
    monkeypatch.undo()
    assert opened and {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("case", ["an output that is a folder", "an output folder that is a file"])
def test_an_output_that_cannot_be_written_is_one_line_before_the_shards_are_read(case, tmp_path, monkeypatch, capsys):
    write_shard(tmp_path / "raw", paragraphs=3)
    out = tmp_path / "tok"
    if case == "an output that is a folder":
        (out / "train.txt").mkdir(parents=True)
        said = f"prepare_pretrain_en.py: error: the output {out / 'train.txt'} is a folder"
    else:
        out.write_text("mine")
        said = f"prepare_pretrain_en.py: error: {out} is a file, not a folder"
    monkeypatch.setattr(prepare, "tokenise_shard", lambda job: pytest.fail("a shard was read"))
    with pytest.raises(SystemExit) as stopped:
        prepare.main([str(tmp_path / "raw"), str(out), "--processes", "1"])
    err = capsys.readouterr().err
    assert stopped.value.code == 1 and err.startswith(said) and err.count("\n") == 1, err
    assert out.is_dir() == (case == "an output that is a folder")
