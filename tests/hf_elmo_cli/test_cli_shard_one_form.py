"""elmo embed --shard refuses every value it cannot take in the one form of a refused option value, naming the
option and quoting the value: ``argument --shard: must be I/N, whole numbers with 0 <= I < N <= 1024 (e.g. 0/2),
got '3/2'`` (was: ``shard 3/2: expected ...`` unquoted where the numbers were out of range, ``shard '1/2.0'``
quoted where they were no whole numbers, ``at most 1024 shards`` for 0/1025), and an empty one (an unset shell
variable: ``--shard "$SHARD"``) is refused so too (was: the whole input embedded, as without --shard)."""

from __future__ import annotations

import pytest

from hf_elmo.embed import Shard, run_shard
from hf_elmo_cli import main

WANTED = "must be I/N, whole numbers with 0 <= I < N <= 1024 (e.g. 0/2)"


@pytest.mark.parametrize("value", ["3/2", "1/0", "0/1025", "1/2.0", "-1/2", "x", "1/", ""])
def test_a_shard_that_is_no_shard_is_refused_in_one_form_writing_nothing(value, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "two.txt").write_text("the cat sat .\n", encoding="utf-8")
    assert main(["embed", "two.txt", "out.hdf5", "--shard", value, "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"elmo embed: error: argument --shard: {WANTED}, got {value!r}\n"
    assert captured.out == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["two.txt"]


def test_a_shard_is_parsed_and_refused_by_its_parser_without_the_option_name():
    assert run_shard("1/2") == Shard(1, 2) == Shard.parse("1/2")
    with pytest.raises(ValueError, match=r"^must be I/N, .*, got '2/2'$"):
        Shard.parse("2/2")
