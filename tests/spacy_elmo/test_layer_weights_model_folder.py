"""``python -m spacy_elmo.layer_weights`` given an ELMo model folder instead of a spaCy pipeline."""

import pytest
import spacy

from spacy_elmo.layer_weights import main


def test_an_elmo_model_folder_is_one_line_saying_so_before_loading(tiny_elmo_dir, tmp_path, capsys, monkeypatch):
    """Was: spaCy's "[E053] Could not read meta.json from PATH/meta.json", which did not say what the folder is."""

    def not_loaded(*args, **kwargs):
        raise AssertionError("spaCy tried to load the ELMo model folder")

    monkeypatch.setattr(spacy, "load", not_loaded)
    out = tmp_path / "w.png"
    assert main([str(tiny_elmo_dir), str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"python -m spacy_elmo.layer_weights: error: {tiny_elmo_dir}: this is an ELMo model folder, not a spaCy "
        "pipeline: the command takes a trained spaCy pipeline folder (e.g. output/model-best), whose components "
        "learned the layer weights"
    ]
    assert not out.exists()


@pytest.mark.parametrize("other_config", [True, False], ids=["another-model-s-config", "empty"])
def test_other_folders_still_go_to_spacy(other_config, tmp_path, capsys):
    folder = tmp_path / "p"
    folder.mkdir()
    if other_config:
        (folder / "config.json").write_text('{"model_type": "bert"}')
    assert main([str(folder), str(tmp_path / "w.png")]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("python -m spacy_elmo.layer_weights: error: [E05"), line
