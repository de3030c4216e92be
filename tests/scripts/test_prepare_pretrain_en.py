"""scripts/prepare_pretrain_en.py: raw pretrain-en shards become tokenised train, valid and test files."""

import gzip
import json
import subprocess
import sys

import pytest

from tests.conftest import REPO, load_script

prepare = load_script("scripts/prepare_pretrain_en.py")


def write_shard(folder, paragraphs: int) -> None:
    folder.mkdir()
    with gzip.open(folder / "wiki_00.txt.gz", "wt", encoding="utf-8") as f:
        f.writelines(f"Paragraph {i} has words. It has two sentences.\n" for i in range(paragraphs))


@pytest.mark.parametrize(
    "option, value, wanted",
    [
        ("--train-fraction", "nan", "a finite number > 0 and <= 1"),
        ("--train-fraction", "inf", "a finite number > 0 and <= 1"),
        ("--train-fraction", "-0.5", "a finite number > 0 and <= 1"),
        ("--train-fraction", "0", "a finite number > 0 and <= 1"),
        ("--train-fraction", "1.5", "a finite number > 0 and <= 1"),
        ("--train-fraction", "half", "a finite number > 0 and <= 1"),
        ("--block", "0", "a positive integer"),
        ("--block", "-50", "a positive integer"),
        ("--block", "2.5", "a positive integer"),
        ("--processes", "0", "a positive integer"),
    ],
)
def test_prepare_refuses_a_bad_number_in_one_line_before_writing_anything(tmp_path, capsys, option, value, wanted):
    write_shard(tmp_path / "raw", paragraphs=3)
    out = tmp_path / "tok"
    with pytest.raises(SystemExit) as stopped:
        prepare.main([str(tmp_path / "raw"), str(out), option, value])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.endswith(f"argument {option}: must be {wanted}, got {value!r}")
    assert not out.exists()


def test_prepare_keeps_the_train_fraction_of_every_200_blocks(tmp_path):
    write_shard(tmp_path / "raw", paragraphs=400)  # blocks of 1: two cycles of 200
    out = tmp_path / "tok"
    command = [sys.executable, str(REPO / "scripts" / "prepare_pretrain_en.py"), str(tmp_path / "raw"), str(out)]
    command += ["--block", "1", "--train-fraction", "0.25", "--processes", "1"]  # a command: its Pool pickles by name
    subprocess.run(command, check=True, capture_output=True, timeout=300, cwd=REPO)
    lines = {split: (out / f"{split}.txt").read_text().splitlines() for split in prepare.SPLITS}
    # per cycle: block 0 valid, 100 test, 1-49 train (positions < 50), 50-199 left out; two sentences a paragraph
    assert [len(lines[split]) for split in prepare.SPLITS] == [2 * 49 * 2, 2 * 2, 2 * 2]
    assert lines["valid"][0] == "Paragraph 0 has words ."
    assert json.loads((out / "prepare.json").read_text())["train_fraction"] == 0.25
