"""The "8-52x" that README.md and a float16 model's warning on the CPU state spans BENCHMARKS.md's table of
``bench_overheads.py float16`` (was: a figure from a snippet in BENCHMARKS.md, not a kept script)."""

from __future__ import annotations

from tests.conftest import REPO
from tests.test_published_speed_ratios import BENCHMARKS, README, table_after


def test_the_stated_float16_slowdown_spans_the_measured_one():
    assert "python scripts/bench_overheads.py float16 --n-sentences B --batch-size B --repeat 2" in BENCHMARKS
    rows = table_after("float16 on the CPU: the shipped model loaded with `dtype=torch.float16` against float32")
    slower = {int(batch): float(ratio.removesuffix("x")) for batch, _, _, ratio in rows}
    assert set(slower) == {1, 16, 64}
    assert 8 <= min(slower.values()) and max(slower.values()) <= 52
    assert "on CPU, float16 is 8-52x slower (the shipped model on one thread, batch 1 to 64; BENCHMARKS.md)" in README
    warning = (REPO / "hf_elmo" / "modeling_elmo.py").read_text(encoding="utf-8")
    assert "ElmoModel runs in float16 on the CPU, which is 8-52x slower than float32" in warning
