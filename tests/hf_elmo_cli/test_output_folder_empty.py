"""An empty OUTPUT_DIR ('') is refused as empty in one line (was: "the output folder . is the current folder or
holds it", naming a "." the user never gave), by every command that writes a folder."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main
from hf_elmo.output_folders import check_output_folder
from tests.hf_elmo.training.test_pretrain_safety import files_under
from tests.hf_elmo.training.test_pretraining import write_corpus

EMPTY = "the output folder is an empty path (''); name the folder to write"


@pytest.mark.parametrize("command", ["export", "pretrain"])
def test_an_empty_output_folder_is_refused_as_empty(command, tmp_path, monkeypatch, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=5)
    monkeypatch.chdir(tmp_path)
    before = files_under(tmp_path)
    argv = (
        ["export", "hf-elmo:elmo-2x1024-en", ""]
        if command == "export"
        else ["pretrain", str(corpus), "", "--epochs", "1"]
    )
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"elmo {command}: error: {EMPTY}"
    assert files_under(tmp_path) == before


def test_check_output_folder_refuses_an_empty_path():
    with pytest.raises(ValueError) as refused:
        check_output_folder("", overwrite=True)
    assert str(refused.value) == EMPTY
