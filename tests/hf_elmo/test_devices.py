"""``hf_elmo.devices.resolve_device``: the default device, and one-line errors for a bad name."""

from __future__ import annotations

import pytest
import torch

from hf_elmo.devices import resolve_device


def test_the_default_is_cuda_when_available_else_cpu():
    assert resolve_device(None).type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == torch.device("cpu")


def test_an_unknown_device_names_what_to_pass():
    with pytest.raises(ValueError, match="unknown device 'gpu0'; use cpu, cuda or cuda:N"):
        resolve_device("gpu0")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_a_cuda_device_says_to_use_cpu():
    with pytest.raises(ValueError, match="no CUDA device is available here .*; use --device cpu"):
        resolve_device("cuda")
