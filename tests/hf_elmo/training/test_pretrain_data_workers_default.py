"""``elmo pretrain --data-workers``'s default on a GPU is 4, or the CPU cores less one where fewer (at least 1),
and its --help and README.md say so (was: "default 4 on GPU", while a 2-core host collates in 1 process)."""

from __future__ import annotations

import re

import pytest
import torch

from hf_elmo.training.data import data_workers_for
from tests.conftest import REPO
from tests.hf_elmo_cli.test_cli_basics import command_parsers


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 1), (4, 3), (5, 4), (64, 4)])
def test_the_gpu_default_is_4_or_the_cores_less_one(monkeypatch, cores, workers):
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert data_workers_for(None, torch.device("cuda")) == workers
    assert data_workers_for(None, torch.device("cpu")) == 0


def test_the_help_and_the_readme_state_the_cores_less_one():
    (action,) = [a for a in command_parsers()["pretrain"]._actions if "--data-workers" in a.option_strings]
    assert "default on GPU: 4, or the CPU cores less one where fewer, at least 1; on CPU: 0" in action.help
    readme = re.sub(r"\s+", " ", (REPO / "README.md").read_text(encoding="utf-8"))
    assert "default 4 on GPU, or the CPU cores less one where fewer, at least 1" in readme
