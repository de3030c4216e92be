"""The benchmark scripts' numeric options refuse a value that makes no run (0 or negative counts, a
negative wait) with argparse's one usage line, before anything is timed."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script

#: (script, its arguments but the bad option, the bad option and value, what the usage error says).
BAD_OPTIONS = [
    ("bench_embed", ["input.txt"], ["--repeat", "0"], "argument --repeat: must be a positive integer, got '0'"),
    (
        "bench_embed",
        ["input.txt", "--stub-model"],
        ["--stub-device-us", "-1"],
        "argument --stub-device-us: must be a finite number >= 0, got '-1'",
    ),
    ("bench_inference", [], ["--batch-sizes", "16", "0"], "argument --batch-sizes: must be a positive integer"),
    ("bench_inference", [], ["--n-sentences", "-5"], "argument --n-sentences: must be a positive integer"),
    ("bench_inference", [], ["--threads", "0"], "argument --threads: must be a positive integer"),
    ("bench_inference", [], ["--repeat", "0"], "argument --repeat: must be a positive integer"),
    ("bench_overheads", ["hook"], ["--n-sentences", "0"], "argument --n-sentences: must be a positive integer"),
    ("bench_overheads", ["hook"], ["--batch-size", "-1"], "argument --batch-size: must be a positive integer"),
    ("bench_overheads", ["long-doc"], ["--doc-tokens", "0"], "argument --doc-tokens: must be a positive integer"),
    ("bench_overheads", ["hook"], ["--threads", "0"], "argument --threads: must be a positive integer"),
    ("bench_overheads", ["hdf5-write"], ["--repeat", "0"], "argument --repeat: must be a positive integer"),
    ("bench_onnx", [], ["--batch-sizes", "-1"], "argument --batch-sizes: must be a positive integer"),
    ("bench_onnx", [], ["--n-sentences", "0"], "argument --n-sentences: must be a positive integer"),
    ("bench_onnx", [], ["--threads", "-2"], "argument --threads: must be a positive integer"),
    ("bench_onnx", [], ["--repeat", "0"], "argument --repeat: must be a positive integer"),
    ("bench_pretrain", [], ["--tokens-per-batch", "0"], "argument --tokens-per-batch: must be an integer >= "),
    ("bench_pretrain", [], ["--steps", "0"], "argument --steps: must be a positive integer"),
    ("bench_pretrain", [], ["--vocab-size", "3"], "argument --vocab-size: must be an integer >= 4"),
    ("bench_pretrain", [], ["--num-sampled", "0"], "argument --num-sampled: must be a positive integer"),
    ("bench_pretrain", [], ["--threads", "-1"], "argument --threads: must be a positive integer"),
    ("bench_spacy", ["--elmo", "m"], ["--max-train", "0"], "argument --max-train: must be a positive integer"),
    ("bench_spacy", ["--elmo", "m"], ["--max-eval", "-1"], "argument --max-eval: must be a positive integer"),
    ("bench_spacy", ["--elmo", "m"], ["--epochs", "0"], "argument --epochs: must be a positive integer"),
    ("bench_spacy", ["--elmo", "m"], ["--gpu-id", "-2"], "argument --gpu-id: must be an integer >= -1"),
    ("bench_spacy", ["--elmo", "m"], ["--pipe-batch-size", "0"], "argument --pipe-batch-size: must be a positive"),
    ("bench_spacy", ["--elmo", "m"], ["--threads", "0"], "argument --threads: must be a positive integer"),
    ("bench_spacy_pipe", [], ["--max-train", "0"], "argument --max-train: must be a positive integer"),
    ("bench_spacy_pipe", [], ["--max-eval", "-1"], "argument --max-eval: must be a positive integer"),
    ("bench_spacy_pipe", [], ["--batch-size", "0"], "argument --batch-size: must be a positive integer"),
    ("bench_spacy_pipe", [], ["--threads", "0"], "argument --threads: must be a positive integer"),
    ("bench_spacy_pipe", [], ["--repeat", "0"], "argument --repeat: must be a positive integer"),
]


@pytest.mark.parametrize(
    "script, given, bad, said", BAD_OPTIONS, ids=lambda value: " ".join(value) if isinstance(value, list) else value
)
def test_a_benchmark_option_without_a_run_is_one_usage_error(script, given, bad, said, capsys, monkeypatch):
    """Was: accepted, then a traceback (--repeat 0: min() of an empty sequence; --threads 0:
    torch.set_num_threads refusing it), a run of nothing (--n-sentences 0) or nonsense."""
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # their shared_data, as when run as scripts
    main = load_script(f"scripts/{script}.py").main
    with pytest.raises(SystemExit) as exit_:
        main([*given, *bad])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert f": error: {said}" in lines[-1] and "Traceback" not in err, err
