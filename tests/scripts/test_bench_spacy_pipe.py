"""scripts/bench_spacy_pipe.py runs end to end, small: every step of the ELMo NER pipeline's nlp.pipe
timed, their total beside nlp.pipe's, and the raw biLM on the same batches beside it (the
command of BENCHMARKS.md's "Where the ELMo pipeline's nlp.pipe time goes")."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO


def test_bench_spacy_pipe_splits_the_pipelines_time_by_step(model_dir):
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_spacy_pipe.py"), "--elmo", str(model_dir)]
        + ["--max-train", "5", "--max-eval", "6", "--batch-size", "4", "--threads", "1", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO / "scripts",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert re.fullmatch(
        r"# CPU .+ \(\d+ cores, load [\d.]+\), 1 torch thread\(s\); .+; 6 eng\.testb sentences, .+", lines[0]
    )
    rows = [line.strip("|").split(" | ") for line in lines if line.startswith("| ") and "share" not in line]
    steps = {label.strip(): float(seconds) for label, seconds, share in rows[:-3]}
    assert len(steps) == 9 and steps["biLM forward (`ElmoModel.forward`)"] > 0
    assert abs(sum(steps.values()) - float(rows[-3][1].strip(" *"))) < 0.02
    assert rows[-3][0] == " **the steps, called one by one**"
    assert re.fullmatch(r" \*\*`nlp.pipe`: [\d,]+ words/s\*\*", rows[-2][0])
    assert re.fullmatch(r" raw `ElmoModel` on the same batches: \*\*[\d,]+ tokens/s\*\*", rows[-1][0])
