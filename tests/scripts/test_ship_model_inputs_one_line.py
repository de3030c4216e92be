"""scripts/ship_model.py: a run folder without training.json (no pretraining run's), and a figures file that is
missing, not JSON or without the model's figures, are each one line naming the file, before anything is written
(was: a traceback, ``FileNotFoundError``, ``JSONDecodeError`` or ``KeyError: 'ours'``)."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import load_script

ship_model = load_script("scripts/ship_model.py")


def _said(monkeypatch, capsys, *argv) -> str:
    monkeypatch.setattr(sys, "argv", ["ship_model.py", *map(str, argv)])
    with pytest.raises(SystemExit) as stopped:
        ship_model.main()
    assert stopped.value.code == 1
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("figures_text", "reason"),
    [
        (None, "no such file (the model's figures, of which the card is written)"),
        ("nope", "not JSON (Expecting value: line 1 column 1 (char 0))"),
        ("{}", 'no "ours" object (the model\'s perplexities, by the text scored)'),
    ],
    ids=["missing", "not-json", "no-ours"],
)
def test_a_figures_file_that_cannot_be_read_is_one_line(tmp_path, monkeypatch, capsys, figures_text, reason):
    run, figures = tmp_path / "run", tmp_path / "figures.json"
    run.mkdir()
    (run / "training.json").write_text(json.dumps({"settings": {}, "position": {}}))
    if figures_text is not None:
        figures.write_text(figures_text)
    said = _said(monkeypatch, capsys, run, tmp_path / "out", "--figures", figures)
    assert said == f"ship_model.py: error: {figures}: {reason}\n"
    assert not (tmp_path / "out").exists()


def test_a_folder_that_is_no_pretraining_run_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "model").mkdir()
    (tmp_path / "figures.json").write_text("{}")
    said = _said(monkeypatch, capsys, tmp_path / "model", tmp_path / "out", "--figures", tmp_path / "figures.json")
    assert said == (
        f"ship_model.py: error: {tmp_path / 'model' / 'training.json'}: no such file (what elmo pretrain writes "
        "beside its model: give the folder of a pretraining run)\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["figures.json", "model"]
