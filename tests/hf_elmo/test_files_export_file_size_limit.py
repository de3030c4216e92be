"""``elmo export`` refuses, before it traces the model, a graph file that would pass the process's file size limit
(``ulimit -f``), in one line naming it, the limit and what to do, and writes nothing (was: for ``torch-export``, a
traceback and ``terminate called after throwing an instance of 'c10::Error'``: torch's archive writer aborts the
process when its write is refused)."""

from __future__ import annotations

import errno
import resource

import pytest

import hf_elmo.fileio
from hf_elmo.export import export_model
from tests.hf_elmo.random_inputs import clipped_random_model


@pytest.mark.parametrize("format", ["torch-export", "onnx"])
def test_a_graph_past_the_file_size_limit_is_refused_before_the_export(tmp_path, monkeypatch, format):
    monkeypatch.setattr(hf_elmo.fileio.resource, "getrlimit", lambda kind: (10_000, resource.RLIM_INFINITY))
    monkeypatch.setattr("hf_elmo.export.require_export_packages", lambda format: None)  # the check comes first
    out = tmp_path / "served"
    with pytest.raises(OSError) as refused:
        export_model(clipped_random_model(), out, format=format)
    assert refused.value.errno == errno.EFBIG
    name = {"onnx": "model.onnx", "torch-export": "model.pt2"}[format]
    assert str(refused.value).startswith(f"the {format} graph {name} of {out} needs about ")
    assert str(refused.value).endswith(
        " bytes, over this process's file size limit (10,000 bytes: ulimit -f); raise the limit and run the command again"
    )
    assert list(tmp_path.iterdir()) == []
