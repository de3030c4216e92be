"""What an ONNX export's graph run with onnxruntime alone (README: "With onnxruntime alone") does with ids the
wrappers refuse, as README says: ONNX Runtime's own InvalidArgument for ids not int64, of another rank or above
261, and a negative id read from the end of the table without an error (was: "the bare graph does not check"
alone, which did not say that a negative id gives other vectors silently), which check_char_ids refuses."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hf_elmo import batch_to_ids
from hf_elmo.export import check_char_ids, export_model
from tests.conftest import REPO
from tests.hf_elmo.random_inputs import clipped_random_model

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())


def test_the_bare_onnx_graph_checks_and_reads_ids_as_readme_says(tmp_path):
    onnxruntime = pytest.importorskip("onnxruntime")
    stated = re.search(
        r"its checks are ONNX Runtime's own errors \(`InvalidArgument` for ids not int64, of another rank, or above "
        r"261\), and a negative id is read from the end of the table \(-1 as 261\) without one, so check such ids "
        r"first \(`hf_elmo\.export\.check_char_ids\(ids, 50\)`\)",
        README,
    )
    assert stated, "README no longer says what the bare graph does with ids the wrappers refuse"
    session = onnxruntime.InferenceSession(str(export_model(clipped_random_model(), tmp_path / "out") / "model.onnx"))
    ids = batch_to_ids([["Hi", "there"]]).numpy()
    for wrong in (ids.astype(np.int32), ids[0], ids + 262):
        with pytest.raises(onnxruntime.capi.onnxruntime_pybind11_state.InvalidArgument):
            session.run(None, {"char_ids": wrong})
    negative, wrapped = ids.copy(), ids.copy()
    negative[0, 0, 1], wrapped[0, 0, 1] = -1, 261
    layers = [session.run(None, {"char_ids": given})[0] for given in (negative, wrapped, ids)]
    assert np.array_equal(layers[0], layers[1]) and not np.array_equal(layers[0], layers[2])
    with pytest.raises(ValueError, match=r"must lie in \[0, 261\], found -1"):
        check_char_ids(negative, 50)
