"""elmo export of a task model's folder says, in a note, that the export holds the biLM alone, not the head (was:
said nothing: the graph gives the biLM's layers where the user may expect the tagger's or classifier's scores);
a biLM's and an LM's folder export without the note."""

from __future__ import annotations

import pytest

from hf_elmo import (
    ElmoConfig,
    ElmoForBidirectionalLM,
    ElmoForSequenceClassification,
    ElmoForTokenClassification,
    ElmoModel,
)
from hf_elmo.cli import main as elmo_main
from hf_elmo.export import open_exported

TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=1)


@pytest.mark.parametrize("head", [ElmoForTokenClassification, ElmoForSequenceClassification])
def test_a_task_models_export_notes_that_it_holds_the_bilm_alone(head, tmp_path, capsys):
    folder = tmp_path / "tagger"
    head(ElmoConfig(**TINY, num_labels=3)).save_pretrained(folder)
    assert elmo_main(["export", str(folder), str(tmp_path / "served"), "--format", "torch-export"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"elmo export: note: {folder} holds an {head.__name__}; the export holds its biLM alone (the layers and "
        "mask its head reads), not the head, whose scores the graph does not give"
    ]
    layers, _ = open_exported(tmp_path / "served")([["a", "b"]])
    assert layers.shape == (1, 2, 2, 16)  # the biLM's layers, not the head's 3 scores


@pytest.mark.parametrize("model", [ElmoModel, ElmoForBidirectionalLM])
def test_a_bilms_or_lms_export_has_no_note(model, tmp_path, capsys):
    model(ElmoConfig(**TINY, vocab_size=7)).save_pretrained(tmp_path / "bilm")
    assert elmo_main(["export", str(tmp_path / "bilm"), str(tmp_path / "served"), "--format", "torch-export"]) == 0
    assert capsys.readouterr().err == ""
