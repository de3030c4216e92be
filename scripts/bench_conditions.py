"""The machine a benchmark ran on, in the words its header prints (``from bench_conditions import
machine``, as the scripts run from ``scripts/``): the CPU's model name, its cores and the load on
them when the run started, so that figures from a shared machine say how busy it was.
"""

from __future__ import annotations

import os
import platform


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


def machine() -> str:
    """``CPU NAME (N cores, load L)``: L is the 1-minute load average at the call (absent where the
    system has none), which is above 0 on a machine busy with other work."""
    try:
        load = f", load {os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):  # no load average on this system (Windows has none)
        load = ""
    return f"CPU {cpu_name()} ({os.cpu_count()} cores{load})"
