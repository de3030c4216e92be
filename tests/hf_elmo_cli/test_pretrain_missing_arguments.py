"""`elmo pretrain` says every missing required argument in one usage error (was: only "one of the arguments
--epochs --max-tokens is required" while OUTPUT_DIR was missing too, which the next try then found)."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main


@pytest.mark.parametrize(
    "argv, missing",
    [
        (["train.txt"], "OUTPUT_DIR and one of --epochs --max-tokens"),
        ([], "TRAIN_FILE, OUTPUT_DIR and one of --epochs --max-tokens"),
        (["train.txt", "--epochs", "1"], "OUTPUT_DIR"),
        (["--max-tokens", "50"], "TRAIN_FILE, OUTPUT_DIR"),
    ],
    ids=["output-dir-and-length", "all", "output-dir", "positionals"],
)
def test_every_missing_required_argument_is_said_in_one_usage_error(argv, missing, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["pretrain", *argv])
    assert exited.value.code == 2
    assert (
        capsys.readouterr().err.splitlines()[-1]
        == f"elmo pretrain: error: the following arguments are required: {missing}"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_missing_length_alone_is_said_as_argparse_says_it(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["pretrain", str(tmp_path / "train.txt"), str(tmp_path / "out")])
    assert exited.value.code == 2
    assert (
        capsys.readouterr().err.splitlines()[-1]
        == "elmo pretrain: error: one of the arguments --epochs --max-tokens is required"
    )
