"""The speed ratios README.md states, read again from the BENCHMARKS.md tables they summarise (each
table beside the command that measured it): a summary that drifts from its table fails here."""

from __future__ import annotations

import re

import pytest

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


def test_the_readmes_fused_lstm_speed_on_cpu_is_the_pretraining_tables():
    """Both places README states it: the fused path's ratios to the fast path at 2048 padded tokens a
    step (was, for training: '1.1-2x slower', against the table's 0.72x-0.98x)."""
    rows = table_after("## Pretraining throughput: biLM paths side by side")
    fused = [ratios for preset, path, ratios, _ in rows if path.startswith("fused") and "2048" in preset]
    at_2048 = [ratio(cell) for ratios in fused for cell in re.findall(r"[\d.]+x", ratios)]
    span = f"{min(at_2048):.1f}-{max(at_2048):.1f}x"
    assert f'slower than `"fast"` at 2048 padded tokens a step ({span})' in README
    assert f"the fused kernel runs at {span} its speed at 2048 padded tokens a step" in README


def test_the_readmes_cuda_graph_figures_are_the_h100_tables():
    """The graphs against the eager path and against AllenNLP at batch 1, 16 and 256, and the eager
    path against AllenNLP, as README rounds them."""
    rows = table_after("### GPU again, with CUDA graphs: NVIDIA H100 80GB HBM3")
    eager, graphs, allennlp = ([float(row[i].replace(",", "")) for row in rows] for i in (3, 5, 2))
    over_eager = ", ".join(f"{g / e:.1f}x" for g, e in zip(graphs, eager))
    said = re.findall(
        r"the graphs ran ([\d.]+x) the eager path at batch 1, ([\d.]+x) at 16 and ([\d.]+x) at 256", README
    )
    assert ", ".join(*said) == over_eager
    against = re.findall(r"at 256: ([\d.]+)x, ([\d.]+)x and ([\d.]+)x AllenNLP's own ELMo on the same GPU", README)
    assert [float(x) for x in against[0]] == pytest.approx([g / a for g, a in zip(graphs, allennlp)], abs=0.06)
    eager_said = re.findall(r"\(the eager path: ([\d.]+)x, ([\d.]+)x, ([\d.]+)x\)", README)
    assert [float(x) for x in eager_said[0]] == pytest.approx([e / a for e, a in zip(eager, allennlp)], abs=0.06)
