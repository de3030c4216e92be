"""`elmo export --overwrite` killed (kill -9, a real one) once its new export is built aside, before it is swapped in,
leaves the earlier export in OUTPUT_DIR whole and opening as it did; the next export over it replaces it and removes
the folder the killed one built in."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np

import hf_elmo.export
from hf_elmo.export import export_model, open_exported
from tests.hf_elmo.random_inputs import clipped_random_model

FORK = multiprocessing.get_context("fork")
SENTENCES = [["Export", "me"], ["ok"]]


def _export_killed_before_the_swap(model: Any, out: Path) -> None:
    """``export_model(model, out, overwrite=True)``, the process killed (SIGKILL) as it checks the graph it built."""

    def killed(*args: Any, **kwargs: Any) -> float:
        os.kill(os.getpid(), signal.SIGKILL)
        return 0.0

    hf_elmo.export._check_graph = killed
    export_model(model, out, "torch-export", overwrite=True)


def test_an_export_killed_over_an_earlier_one_leaves_it_whole(tmp_path, one_thread):
    out, model = tmp_path / "served", clipped_random_model()
    export_model(model, out, "torch-export")
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    layers = open_exported(out)(SENTENCES)
    killed = FORK.Process(target=_export_killed_before_the_swap, args=(clipped_random_model(), out))
    killed.start()
    killed.join(timeout=300)
    assert killed.exitcode == -signal.SIGKILL
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    for got, expected in zip(open_exported(out)(SENTENCES), layers, strict=True):
        np.testing.assert_array_equal(got, expected)
    (staging,) = [path for path in tmp_path.iterdir() if path.name.startswith(".served.")]
    export_model(model, out, "torch-export", overwrite=True)
    assert not staging.exists() and sorted(path.name for path in tmp_path.iterdir()) == ["served"]
