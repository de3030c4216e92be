"""The benchmark scripts say the conditions of their figures: the machine by its CPU's name (was:
``x86_64``, ``platform.processor()`` being empty on Linux), its cores and its load at the start,
and the seed of their random weights; bench_spacy.py prints ELMo's gains and speed ratios beside
its table."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

from tests.conftest import REPO, load_script

#: What bench_conditions.machine() says of a CPU.
MACHINE = r"CPU (.+) \((\d+) cores, load \d+\.\d\)"


def test_the_machine_is_the_cpus_model_name_its_cores_and_its_load():
    said = re.fullmatch(MACHINE, load_script("scripts/bench_conditions.py").machine())
    assert said, said
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        name = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    assert said.groups() == (name, str(os.cpu_count()))


def test_bench_inference_names_the_machine_the_threads_and_the_seed_of_its_weights(shared, tmp_path):
    command = [sys.executable, str(REPO / "scripts" / "bench_inference.py"), "--no-reference", "--sizes", "small"]
    command += ["--batch-sizes", "2", "--n-sentences", "2", "--repeat", "1", "--threads", "1"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "ELMO_SHARED": str(shared)},
        start_new_session=True,  # its worker too is stopped below
    )
    try:
        header = next(line for line in process.stdout if line.startswith("# "))
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert re.match(rf"# {MACHINE}, 1 threads, device cpu, 2 sentences, ", header), header
    assert "; random weights of seed 0; ratio: ours against AllenNLP's tokens/s" in header, header


def _result(task: str, pipeline: str, dev: float, test: float, words_per_s: float, cpu_s: float) -> dict:
    return {
        "task": task,
        "pipeline": pipeline,
        "dev": dev,
        "test": test,
        "pipe_words_per_second": words_per_s,
        "epoch_cpu_seconds": [cpu_s, 1.0],
    }


def test_bench_spacy_prints_elmos_gain_and_speed_ratios_for_each_task_with_both_pipelines(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from
    gains = load_script("scripts/bench_spacy.py").gains
    results = [
        _result("conll2003", "baseline", 87.25, 80.4, 4000.0, 10.0),
        _result("conll2003", "ELMo", 91.15, 86.45, 1000.0, 25.0),
        _result("sst2", "ELMo", 80.0, 81.0, 900.0, 5.0),  # no baseline: no line
    ]
    assert gains(results) == [
        "conll2003: ELMo minus baseline dev +3.9, test +6.0; "
        "ELMo against baseline: nlp.pipe words/s 0.25x, CPU s of epoch 1 2.50x"
    ]
