"""scripts/bench_spacy_pipe.py --full-cache times ``nlp.pipe`` with the activation cache full (every store
evicts) beside the empty cache's, in the same run, and prints the two's ratio: the command of BENCHMARKS.md's
full-cache figure (was: a one-off script, not kept)."""

from __future__ import annotations

import re

from tests.conftest import REPO, load_script, run_main


def test_the_full_caches_nlp_pipe_is_timed_beside_the_empty_caches(model_dir, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_spacy_pipe.py")  # in this process: spaCy and torch imported once
    argv = ["--elmo", str(model_dir), "--full-cache", "--max-train", "5", "--max-eval", "6", "--batch-size", "4"]
    code, out, err = run_main(module, [*argv, "--threads", "1", "--repeat", "1"], capsys)
    assert code == 0, err[-3000:]
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    empty = re.fullmatch(r"\| \*\*`nlp.pipe`: ([\d,]+) words/s\*\* \| \*\*[\d.]+\*\* \| \|", rows[-3])
    full = re.fullmatch(
        r"\| `nlp.pipe`, the activation cache full \(every store evicts\): \*\*([\d,]+) words/s\*\*, "
        r"([\d.]+)x the empty cache's \| [\d.]+ \| \|",
        rows[-1],
    )
    assert empty and full, rows[-3:]
    empty_rate, full_rate = (float(match.group(1).replace(",", "")) for match in (empty, full))
    assert abs(float(full.group(2)) - full_rate / empty_rate) <= 0.01
