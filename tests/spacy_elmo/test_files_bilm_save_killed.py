"""A pipeline's ``nlp.to_disk`` over an earlier save, killed (kill -9, a real one) as the elmo component writes its
biLM weights, leaves the earlier biLM whole (the pipeline loads and gives the layers it gave); the next save over it
writes whole and removes what the killed one built in."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import spacy
import torch
import transformers.modeling_utils

from spacy_elmo.bilm import get_elmo
from tests.spacy_elmo.test_elmo_component import TEXTS

FORK = multiprocessing.get_context("fork")


def files_of(folder: Path) -> dict[Path, bytes]:
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def _saved_killed_in_the_weights(nlp: Any, pipeline: Path) -> None:
    """``nlp.to_disk(pipeline)``, the process killed (SIGKILL) once the biLM's weights file is partly written."""

    def killed(tensors: Any, filename: str, *args: Any, **kwargs: Any) -> None:
        Path(filename).write_bytes(b"\x00" * 1000)
        os.kill(os.getpid(), signal.SIGKILL)

    transformers.modeling_utils.safe_save_file = killed
    nlp.to_disk(pipeline)


def test_a_save_killed_in_the_bilm_weights_keeps_the_earlier_bilm(make_nlp, tmp_path, one_thread):
    pipeline = tmp_path / "pipeline"
    nlp = make_nlp()
    nlp.to_disk(pipeline)
    before, expected = files_of(pipeline / "elmo"), spacy.load(pipeline)(TEXTS[0])._.elmo.layers
    with torch.no_grad():
        for parameter in get_elmo(nlp.get_pipe("elmo").model).parameters():
            parameter.add_(1.0)
    killed = FORK.Process(target=_saved_killed_in_the_weights, args=(nlp, pipeline))
    killed.start()
    killed.join(timeout=120)
    assert killed.exitcode == -signal.SIGKILL
    assert {name: data for name, data in files_of(pipeline / "elmo").items() if name.parts[0] == "bilm"} == before
    np.testing.assert_array_equal(spacy.load(pipeline)(TEXTS[0])._.elmo.layers, expected)
    nlp.to_disk(pipeline)
    assert [path.name for path in (pipeline / "elmo").iterdir()] == ["bilm"]
    saved = spacy.load(pipeline)(TEXTS[0])._.elmo.layers
    assert not np.array_equal(saved, expected)
    np.testing.assert_array_equal(saved, nlp(TEXTS[0])._.elmo.layers)
