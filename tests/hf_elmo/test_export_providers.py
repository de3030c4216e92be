"""``OnnxElmo`` tells a graph that does not load (a damaged export, ``InvalidModelError``: export it again)
apart from one that loads but not on the providers or session options given (a ``RuntimeError`` naming
them: exporting again would not help). ONNX Runtime is CPU-only here: a CUDA provider that this install
claims but cannot start is what onnxruntime-gpu does without a GPU, CUDA or cuDNN."""

from __future__ import annotations

import shutil

import pytest

from hf_elmo.export import OnnxElmo, export_model
from hf_elmo.modeling_elmo import InvalidModelError
from tests.hf_elmo.random_inputs import clipped_random_model

onnxruntime = pytest.importorskip("onnxruntime")  # the export extra: not on the GPU host (scripts/gpu/README.md)

CUDA = "CUDAExecutionProvider"


@pytest.fixture(scope="module")
def onnx_folder(tmp_path_factory):
    return export_model(clipped_random_model(), tmp_path_factory.mktemp("export") / "out", "onnx")


@pytest.fixture
def claims_cuda(monkeypatch):
    """This install says it has the CUDA provider, which fails to start (there is no GPU here)."""
    available = onnxruntime.get_available_providers()
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: [CUDA, *available])


def test_a_provider_that_cannot_start_is_named_not_the_file(onnx_folder, claims_cuda, capsys):
    """Was: served on the CPU, though the caller asked for CUDA alone (ONNX Runtime falls back to the CPU where a
    provider fails, saying so on stdout at most)."""
    with pytest.raises(RuntimeError) as error:
        OnnxElmo(onnx_folder, providers=[CUDA])
    said = str(error.value)
    assert said.startswith(f"ONNX Runtime cannot run {onnx_folder / 'model.onnx'} on the providers {CUDA} (")
    assert "the file is sound" in said and "export the model again" not in said and "\n" not in said
    assert capsys.readouterr().out == ""
    assert OnnxElmo(onnx_folder, providers=[CUDA, "CPUExecutionProvider"]).session.get_providers() == [
        "CPUExecutionProvider"
    ]  # the CPU asked for as the next choice: that is ONNX Runtime's order of preference


def test_session_options_that_fail_are_named_not_the_file(onnx_folder, tmp_path):
    """Was: 'model.onnx cannot be read as an ONNX model (SystemError : 2); export the model again', for a sound
    file: the options asked ONNX Runtime to write the optimised graph into a folder that does not exist."""
    options = onnxruntime.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "missing" / "optimized.onnx")
    with pytest.raises(RuntimeError) as error:
        OnnxElmo(onnx_folder, session_options=options)
    said = str(error.value)
    assert not isinstance(error.value, InvalidModelError) and "\n" not in said
    assert said.startswith(
        f"ONNX Runtime cannot run {onnx_folder / 'model.onnx'} on the providers CPUExecutionProvider with the "
        "session_options given ("
    )


def test_a_damaged_graph_is_still_told_as_damaged_whatever_the_providers(onnx_folder, claims_cuda, tmp_path):
    folder = tmp_path / "served"
    shutil.copytree(onnx_folder, folder)
    graph = folder / "model.onnx"
    graph.write_bytes(graph.read_bytes()[: graph.stat().st_size // 2])
    with pytest.raises(InvalidModelError, match=f"^{graph} cannot be read as an ONNX model .*; export the model again"):
        OnnxElmo(folder, providers=[CUDA, "CPUExecutionProvider"])
