"""The benchmarks write their reports whole or not at all: a write that fails midway (a full disk)
leaves the earlier report as it was, not a truncated one."""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import pytest

from hf_elmo.convert import save_allennlp
from tests.conftest import REPO, load_script
from tests.spacy_elmo.pipeline_helpers import tiny_elmo

EARLIER = "the earlier report\n"


def _fill_the_disk(monkeypatch) -> None:
    """Make every ``Path.write_text`` write part of its text, then fail as a full disk does."""

    def write_text(self, data, encoding=None, errors=None, newline=None):
        with open(self, "w", encoding=encoding) as handle:
            handle.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", write_text)


def test_a_results_json_that_fails_midway_leaves_the_earlier_one(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_spacy.py")
    row = {"task": "sst2", "pipeline": "baseline", "epoch_seconds": [1.0], "epoch_cpu_seconds": [1.0], "dev": 50.0}
    row |= {"test": 50.0, "pipe_words_per_second": 9.0, "peak_gpu_mib": None, "layer_weights": []}
    monkeypatch.setattr(module, "convert", lambda *args: {})
    monkeypatch.setattr(module, "run", lambda *args: row)
    monkeypatch.setattr(module.torch, "set_num_threads", lambda n: None)  # --threads: not this process's others
    output = tmp_path / "out"
    output.mkdir()
    (output / "results.json").write_text(EARLIER)
    argv = ["bench_spacy.py", "--elmo", "unused", "--tasks", "sst2", "--pipelines", "baseline"]
    monkeypatch.setattr(sys, "argv", [*argv, "--output", str(output)])
    _fill_the_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        module.main()
    assert [p.name for p in output.iterdir()] == ["results.json"]
    assert (output / "results.json").read_text() == EARLIER


def test_a_profile_report_that_fails_midway_leaves_the_earlier_one(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_inference.py")
    save_allennlp(tiny_elmo(), tmp_path / "options.json", tmp_path / "weights.hdf5")
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("The cat sat .\nHi there\n")
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "report.txt").write_text(EARLIER)
    monkeypatch.setattr(module, "profile_report", lambda *args: "a new report, half of which is written\n")
    _fill_the_disk(monkeypatch)
    options = ["--options", str(tmp_path / "options.json"), "--weights", str(tmp_path / "weights.hdf5")]
    options += ["--sentences", str(sentences), "--batch-size", "2", "--repeat", "1", "--threads", "1"]
    with pytest.raises(OSError, match="No space left"):
        module.worker([*options, "--profile", str(profiles / "report.txt")])
    assert [p.name for p in profiles.iterdir()] == ["report.txt"]
    assert (profiles / "report.txt").read_text() == EARLIER
