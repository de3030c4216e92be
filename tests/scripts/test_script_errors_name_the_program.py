"""A script's failure is one line naming the script as argparse names a program in its usage errors
(``PROG: error: ...``, ``exit_with_error``); was a bare ``error: ...`` (and, for a folder of no shards,
no ``error:`` at all)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import load_script


def failure(capsys, monkeypatch, script: str, *argv: str) -> tuple[int | str | None, str]:
    """``scripts/SCRIPT``'s ``main`` run in this process on the command line ``argv`` (``sys.argv``, which
    ``ship_model.py`` reads): its exit code and stderr."""
    module = load_script(f"scripts/{script}")
    monkeypatch.setattr(sys, "argv", [f"scripts/{script}", *argv])
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        module.main()
    return stopped.value.code, capsys.readouterr().err


def test_convert_corpora_names_itself(tmp_path, capsys, monkeypatch):
    source = tmp_path / "sst.tiny"
    source.write_text("1 a fine film .\n", encoding="utf-8")
    code, err = failure(capsys, monkeypatch, "convert_corpora.py", "sst", str(source), str(source))
    assert (
        code == 1
        and err.startswith(f"convert_corpora.py: error: the output {source} is the input")
        and err.count("\n") == 1
    ), err


def test_prepare_pretrain_en_names_itself_for_a_folder_of_no_shards(tmp_path, capsys, monkeypatch):
    code, err = failure(capsys, monkeypatch, "prepare_pretrain_en.py", str(tmp_path), str(tmp_path / "out"))
    assert (code, err) == (1, f"prepare_pretrain_en.py: error: no *.txt.gz shards in {tmp_path}\n")


def test_wikitext_sentences_names_itself(tmp_path, capsys, monkeypatch):
    code, err = failure(
        capsys, monkeypatch, "wikitext_sentences.py", str(tmp_path / "missing.tokens"), str(tmp_path / "out.txt")
    )
    assert code == 1 and err.startswith("wikitext_sentences.py: error: ") and err.count("\n") == 1, err


def test_ship_model_names_itself(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    figures = str(tmp_path / "figures.json")
    code, err = failure(capsys, monkeypatch, "ship_model.py", str(run), str(run), "--figures", figures, "--overwrite")
    assert code == 1 and err.startswith(f"ship_model.py: error: the output folder {run} is the input;"), err
