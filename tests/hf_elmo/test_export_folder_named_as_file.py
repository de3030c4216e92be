"""``elmo export MODEL model.onnx`` (``export_model``) is refused in one line before the model loads, naming the folder
to give: an export is a folder, and one named ``model.onnx`` would hold ``model.onnx`` where a file was meant (was:
written so). A folder named without a file's suffix is written as before."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoConfig, ElmoModel
from hf_elmo.export import export_model
from hf_elmo_cli import main

TINY = dict(char_embedding_dim=4, filters=[[1, 4], [2, 8]], n_highway=1, lstm_dim=16, projection_dim=8, n_layers=1)


@pytest.mark.parametrize(("name", "folder"), [("model.onnx", "model"), ("elmo.PT2", "elmo"), ("m.tar.gz", "m")])
def test_elmo_export_to_a_file_name_is_refused_naming_the_folder(name, folder, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export", "hf-elmo:elmo-2x1024-en", name]) == 2
    suffix = "." + name.rsplit(".", 1)[1]
    assert capsys.readouterr().err.splitlines() == [
        f"elmo export: error: the output folder {name} is named as a {suffix} file, but an export is a folder (its "
        f"graph, model.onnx or model.pt2, beside the tokenizer's files and elmo_export.json): name the folder, e.g. "
        f"{folder}"
    ]
    assert list(tmp_path.iterdir()) == []


def test_export_model_refuses_alike_and_writes_a_folder_named_as_one(tmp_path):
    model = ElmoModel(ElmoConfig(**TINY)).eval()
    with pytest.raises(
        ValueError, match=r"^the output folder .*graph\.zip is named as a \.zip file, .* e\.g\. .*graph$"
    ):
        export_model(model, tmp_path / "graph.zip", "torch-export")
    assert list(tmp_path.iterdir()) == []
    assert (export_model(model, tmp_path / "graph.v2", "torch-export") / "model.pt2").is_file()
