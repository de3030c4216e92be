"""ONNX Runtime's telemetry (usage events sent to Microsoft where a session starts) is off for every session
``elmo export`` and ``OnnxElmo`` start (``onnx_runtime``, the one home of the module). Was: on, 3 connections
to mobile.events.data.microsoft.com from one `elmo export`."""

from __future__ import annotations

import pytest

from hf_elmo.export import OnnxElmo, export_model
from tests.hf_elmo.random_inputs import clipped_random_model

onnxruntime = pytest.importorskip("onnxruntime")  # the export extra: not on the GPU host (scripts/gpu/README.md)


@pytest.fixture
def sessions_started(monkeypatch) -> list[bool]:
    """For each session started, whether telemetry was off by then (``disable_telemetry_events`` called)."""
    off = [False]
    started: list[bool] = []
    session = onnxruntime.InferenceSession

    def disable() -> None:
        off[0] = True

    def start(*args, **kwargs):
        started.append(off[0])
        return session(*args, **kwargs)

    monkeypatch.setattr(onnxruntime, "disable_telemetry_events", disable)
    monkeypatch.setattr(onnxruntime, "InferenceSession", start)
    return started


def test_export_and_serving_start_their_sessions_with_telemetry_off(sessions_started, tmp_path):
    folder = export_model(clipped_random_model(), tmp_path / "out", "onnx")
    assert sessions_started == [True]  # export_model's check of the written graph
    sessions_started.clear()
    OnnxElmo(folder)
    assert sessions_started == [True]
