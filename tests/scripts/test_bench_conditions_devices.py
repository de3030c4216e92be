"""The benchmark scripts that take ``--device`` name the GPU their figures ran on (its name, the CUDA
and cuDNN versions, whether TF32 may round float32 matmuls and convolutions), from one home,
bench_conditions.machine; a device this machine lacks is one line before any run, not a worker's
traceback; bench_embed.py says the threads and the batch elmo embed ran with, passed or not."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import torch

from hf_elmo.embed_options import DEFAULT_BATCH_TOKENS
from tests.conftest import REPO, load_script

#: What bench_conditions.machine() says of a CPU.
CPU = r"CPU .+ \(\d+ cores, load \d+\.\d\)"


@pytest.mark.parametrize("device", ["cuda", "cuda:1"])
@pytest.mark.parametrize("tf32", [False, True])
def test_a_cuda_device_is_named_with_its_cuda_and_cudnn_versions_and_tf32_settings_before_the_host(
    monkeypatch, device, tf32
):
    asked = []
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda name: asked.append(name) or "NVIDIA H200")
    monkeypatch.setattr(torch.version, "cuda", "12.8")
    monkeypatch.setattr(torch.backends.cudnn, "version", lambda: 91002)
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", not tf32)
    matmul = torch.backends.cuda.matmul.allow_tf32  # a flag of torch's C side, which monkeypatch cannot set
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        said = load_script("scripts/bench_conditions.py").machine(device)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = matmul
    on, off = ("on", "off") if tf32 else ("off", "on")
    prefix = f"GPU NVIDIA H200 (CUDA 12.8, cuDNN 91002, TF32 matmul {on}, cuDNN TF32 {off}), host "
    assert said.startswith(prefix) and re.fullmatch(CPU, said[len(prefix) :]), said
    assert asked == [device]


def test_the_cpu_is_the_host_alone():
    assert re.fullmatch(CPU, load_script("scripts/bench_conditions.py").machine("cpu"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a CUDA device")
@pytest.mark.parametrize("script", ["bench_inference.py", "bench_pretrain.py"])
def test_a_cuda_device_on_a_machine_without_one_is_one_line(script):
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / script), "--device", "cuda"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1 and result.stdout == "", result
    assert result.stderr == (
        f"{script}: error: device 'cuda': no CUDA device is available here (torch.cuda.is_available() is False); "
        "use --device cpu\n"
    )


def test_bench_embed_says_the_threads_and_the_batch_elmo_embed_ran_with_when_not_passed(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("the cat sat .\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_embed.py"), str(text), "--stub-model", "--layers", "average"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    threads = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.get_num_threads())"], capture_output=True, text=True
    ).stdout.strip()
    assert re.search(
        rf"; {CPU}, {threads} threads, {DEFAULT_BATCH_TOKENS:,} padded tokens a batch; fastest of 1 run\(s\)",
        result.stdout,
    ), result.stdout
