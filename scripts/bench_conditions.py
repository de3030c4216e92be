"""The machine a benchmark ran on, in the words its header prints (``from bench_conditions import
machine``, as the scripts run from ``scripts/``): the CPU's model name, its cores and the load on
them when the run started, so that figures from a shared machine say how busy it was; on a CUDA
device, the GPU first: its name, the CUDA and cuDNN versions torch runs with, and whether TF32 may
round float32 matmuls and convolutions (it changes both speed and digits). ``machine_apart``: the
same words from a process of its own, for a benchmark whose runs on the GPU are other processes.
``alternated``: the median seconds of sides timed in turn, so that the machine's load weighs on each alike.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``), else what ``platform`` knows of it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(device: str = "cpu") -> str:
    """``CPU NAME (N cores, load L)``: L is the 1-minute load average at the call (absent where the
    system has none), which is above 0 on a machine busy with other work. On a CUDA ``device``
    (``cuda``, ``cuda:N``): ``GPU NAME (CUDA V, cuDNN V, TF32 matmul on|off, cuDNN TF32 on|off), host``
    and the CPU's words."""
    try:
        load = f", load {os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):  # no load average on this system (Windows has none)
        load = ""
    host = f"CPU {cpu_name()} ({os.cpu_count()} cores{load})"
    if device.split(":")[0] != "cuda":
        return host
    import torch

    switch = {True: "on", False: "off"}
    return (
        f"GPU {torch.cuda.get_device_name(device)} (CUDA {torch.version.cuda}, "
        f"cuDNN {torch.backends.cudnn.version()}, TF32 matmul {switch[torch.backends.cuda.matmul.allow_tf32]}, "
        f"cuDNN TF32 {switch[torch.backends.cudnn.allow_tf32]}), host {host}"
    )


def machine_apart(device: str = "cpu") -> str:
    """``machine(device)``, a CUDA device named by a child process (this file run with the device) that ends once
    it has said it: naming a GPU initialises CUDA in the process that asks (torch's lazy init, cuDNN), which may
    open a CUDA context there, hundreds of MiB of the GPU's memory held while the benchmark's own children run on
    it, and taken from their figures (bench_inference.py; was: named in the benchmark's process). The CPU: here."""
    if device.split(":")[0] != "cuda":
        return machine(device)
    child = subprocess.run([sys.executable, __file__, device], capture_output=True, text=True)
    if child.returncode != 0:
        said = next((line for line in reversed(child.stderr.splitlines()) if line.strip()), "it said nothing")
        raise RuntimeError(f"naming the device {device} failed (exit {child.returncode}): {said.strip()}")
    return child.stdout.strip()


def alternated(
    sides: dict[str, Callable[[], object]],
    repeat: int,
    warm_up: Callable[[], object] | None = None,
    untimed: dict[str, Callable[[], object]] | None = None,
) -> dict[str, float]:
    """The median seconds of each of ``sides``, run in turn ``repeat`` times, after one untimed warm-up:
    ``warm_up`` where given, else each side once. ``untimed[name]``, where given, runs before each timed
    run of the side ``name``, outside its time (what the side needs made first)."""
    for run in [warm_up] if warm_up is not None else sides.values():
        run()
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(repeat):
        for name, run in sides.items():
            if untimed is not None and name in untimed:
                untimed[name]()
            start = time.perf_counter()
            run()
            seconds[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in seconds.items()}


if __name__ == "__main__":  # machine_apart's child
    print(machine(sys.argv[1]))
