"""bench_inference.py --device cuda names the GPU in its header from a child process that ends once it has said it
(``bench_conditions.machine_apart``), not in its own process, where CUDA's initialisation may open a context that
holds GPU memory while its workers run and measure theirs (was: ``machine(device)`` in the benchmark's process). The
header's words are ``machine``'s, as before."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import torch

from tests.conftest import REPO, load_script

#: What the child says, in these tests (no GPU here).
NAMED = "GPU NVIDIA H200 (CUDA 12.8, cuDNN 91002, TF32 matmul off, cuDNN TF32 on), host CPU x (2 cores, load 0.1)"


def _no_cuda_here(*args, **kwargs):
    raise AssertionError("CUDA initialised in the benchmark's own process")


@pytest.fixture
def scripts(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where they import their siblings from
    monkeypatch.setattr(torch.cuda, "get_device_name", _no_cuda_here)
    monkeypatch.setattr(torch.cuda, "get_device_properties", _no_cuda_here)
    monkeypatch.setattr(torch.cuda, "init", _no_cuda_here)


def _child(asked: list[list[str]]):
    """``subprocess.run`` where bench_conditions.py's child says ``NAMED`` (others run, e.g. ``platform``'s)."""
    real = subprocess.run

    def run(command, **kwargs):
        if not str(command[1]).endswith("bench_conditions.py"):
            return real(command, **kwargs)
        asked.append(command)
        return subprocess.CompletedProcess(command, 0, stdout=NAMED + "\n", stderr="")

    return run


def test_the_header_names_the_gpu_from_a_child_process(scripts, shared, monkeypatch, capsys):
    import hf_elmo.devices

    module = load_script("scripts/bench_inference.py")
    asked: list[list[str]] = []
    monkeypatch.setattr(sys.modules["bench_conditions"].subprocess, "run", _child(asked))
    monkeypatch.setattr(hf_elmo.devices, "resolve_device", lambda name: torch.device(name))
    monkeypatch.setattr(module, "run_measured", lambda command, env: {"tokens_per_s": 100.0, "peak_gpu_mb": 10.0})
    monkeypatch.setenv("ELMO_SHARED", str(shared))
    module.main(["--device", "cuda", "--no-reference", "--sizes", "small", "--batch-sizes", "2", "--n-sentences", "3"])
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith(f"# {NAMED}, 2 threads, device cuda, 3 sentences, "), header
    assert asked == [[sys.executable, str(REPO / "scripts" / "bench_conditions.py"), "cuda"]]


def test_a_cpu_is_named_here_and_the_child_says_what_machine_says(scripts):
    module = load_script("scripts/bench_conditions.py")
    cpu = r"CPU .+ \(\d+ cores, load \d+\.\d\)"
    assert re.fullmatch(cpu, module.machine_apart("cpu"))
    said = subprocess.run(
        [sys.executable, str(REPO / "scripts/bench_conditions.py"), "cpu"], capture_output=True, text=True, timeout=300
    )
    assert re.fullmatch(cpu + "\n", said.stdout), said


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a CUDA device")
def test_a_child_that_fails_is_one_line_naming_the_device(scripts):
    with pytest.raises(RuntimeError, match=r"^naming the device cuda:1 failed \(exit 1\): \w+Error: [^\n]+$"):
        load_script("scripts/bench_conditions.py").machine_apart("cuda:1")
