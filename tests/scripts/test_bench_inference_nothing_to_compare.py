"""bench_inference.py --no-reference without --bf16 or --cuda-graphs has nothing to compare our
vectors with: it runs no exactness pass and writes no row of the size alone (was: one more run
of ours, a JSON row ``{"size": "small"}`` and a table footnote ``# size small``)."""

from __future__ import annotations

from tests.scripts.test_bench_inference import bench


def test_a_run_with_nothing_to_compare_has_only_its_timing_rows(shared, tmp_path):
    result, rows = bench(shared, tmp_path, "--batch-sizes", "2", "--n-sentences", "4")
    assert [(row["size"], row["batch_size"]) for row in rows] == [("small", 2)]
    assert "# size small" not in result.stdout
    assert "| small | 2 | - |" in result.stdout
