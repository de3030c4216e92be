"""The speed ratios README.md states, read again from the BENCHMARKS.md tables they summarise (each
table beside the command that measured it): a summary that drifts from its table fails here."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())  # sentences on one line
BENCHMARKS = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")


def table_after(heading: str) -> list[list[str]]:
    """The cells of the first table's rows (header and rule left out) after the line ``heading``."""
    lines = BENCHMARKS[BENCHMARKS.index(heading) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            return rows
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def ratio(cell: str) -> float:
    return float(cell.removesuffix("x"))


def test_the_readmes_bfloat16_speed_up_on_cpu_is_the_cpu_tables_from_batch_16_on():
    rows = table_after("### CPU: AMD EPYC, 2-core VM (AVX512-bf16), 2 threads")
    header = "| size | batch | AllenNLP tok/s | ours tok/s | ratio | ours bf16 tok/s | bf16 ratio |"
    assert header in BENCHMARKS
    speed_ups = [float(bf16.replace(",", "")) / float(ours.replace(",", "")) for _, _, _, ours, _, bf16, *_ in rows]
    from_16 = [s for s, row in zip(speed_ups, rows) if int(row[1]) >= 16]
    at_1 = [s for s, row in zip(speed_ups, rows) if int(row[1]) == 1]
    said = re.findall(r"on CPU ([\d.]+)-([\d.]+)x faster from batch 16 on \(about as fast at batch 1", README)
    assert said == [(f"{min(from_16):.1f}", f"{max(from_16):.1f}")], (said, from_16)
    assert all(0.9 <= s <= 1.15 for s in at_1), at_1
