"""scripts/ship_model.py: a run folder (or an --earlier one) whose training.json is not the record elmo pretrain
writes (not an object, or without its "settings" and "position" objects) is one line naming the file, before
anything is written (was: a traceback, AttributeError or KeyError)."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import load_script

ship_model = load_script("scripts/ship_model.py")


@pytest.mark.parametrize("record", [[1, 2], {"settings": {}}, {"settings": {}, "position": 3}])
@pytest.mark.parametrize("earlier", [False, True], ids=["run", "earlier"])
def test_a_training_json_that_is_no_run_record_is_one_line_naming_it(tmp_path, monkeypatch, capsys, record, earlier):
    good, bad = tmp_path / "good", tmp_path / "bad"
    for folder, text in ((good, {"settings": {}, "position": {}}), (bad, record)):
        folder.mkdir()
        (folder / "training.json").write_text(json.dumps(text))
    (tmp_path / "figures.json").write_text(json.dumps({"ours": {}}))
    run = ["--earlier", bad, good] if earlier else [bad]
    argv = [*run, tmp_path / "out", "--figures", tmp_path / "figures.json"]
    monkeypatch.setattr(sys, "argv", ["ship_model.py", *map(str, argv)])
    with pytest.raises(SystemExit) as stopped:
        ship_model.main()
    assert stopped.value.code == 1
    assert capsys.readouterr().err == (
        f'ship_model.py: error: {bad / "training.json"}: no "settings" and "position" objects, as elmo pretrain '
        "writes: give the folder of a pretraining run\n"
    )
    assert not (tmp_path / "out").exists()
