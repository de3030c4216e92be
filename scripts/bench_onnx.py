#!/usr/bin/env python
"""CPU inference speed of the ONNX export (ONNX Runtime) beside eager ``ElmoModel``, in one run.

A model of the released small (or original) shape with random weights (as in
``bench_inference.py``) is exported with ``hf_elmo.export.export_model(..., "onnx")``; then, for
each batch size, eager ``ElmoModel`` (fast path, float32, stateless, token cache cleared before
every pass) and ``OnnxElmo`` (ONNX Runtime's CPU provider, the same thread count) alternate pass
by pass over the same sentences in this one process. Protocol of ``bench_inference.py``: consecutive batches
of B lines in file order, one untimed warm-up batch, the best of ``--repeat`` passes; the timed
region is char ids + the model + one float32 array (L+1, T, 2P) per sentence. tokens/s count
real tokens. The max abs difference of all layers between the two is printed too.

    python scripts/bench_onnx.py                                  # small, batch 1/16/64, 2 threads
    python scripts/bench_onnx.py --size original --n-sentences 100
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from hf_elmo.fileio import scratch_folder, write_text_atomic
from hf_elmo_cli.commands._args import (
    SuggestingParser,
    check_output_option,
    file_path,
    input_file,
    positive_int,
    sentences_option,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_conditions import machine  # noqa: E402
from bench_inference import SEED, SIZES, conll_sentences, shared_dir, write_random_model  # noqa: E402

Embed = Callable[[Sequence[Sequence[str]]], list[np.ndarray]]


def best_tokens_per_s(
    sides: dict[str, tuple[Embed, Callable[[], None]]], batches: list[list], repeat: int
) -> dict[str, float]:
    """Per side (name: (embed, run before each pass)), real tokens/s of its best of ``repeat`` passes
    over ``batches``, after one warm-up batch each; the sides' passes alternate."""
    tokens = sum(len(sentence) for batch in batches for sentence in batch)
    for embed, _ in sides.values():
        embed(batches[0])
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(repeat):
        for name, (embed, before_pass) in sides.items():
            before_pass()
            start = time.perf_counter()
            for batch in batches:
                embed(batch)
            times[name].append(time.perf_counter() - start)
    return {name: tokens / min(values) for name, values in times.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--batch-sizes", nargs="+", type=positive_int, default=[1, 16, 64])
    parser.add_argument("--n-sentences", type=positive_int, default=200, help="sentences of the CoNLL-2003 dev text")
    parser.add_argument(
        "--text", type=input_file("the file"), help="instead: a file with one tokenised sentence per line"
    )
    parser.add_argument("--threads", type=positive_int, default=2)
    parser.add_argument("--repeat", type=positive_int, default=3, help="timed passes per side (best counts)")
    parser.add_argument("--json", type=file_path("JSON file", "rows.json"), help="also write the rows as JSON")
    args = parser.parse_args(argv)
    if args.json:  # before the run, not after it
        check_output_option(parser, "argument --json", args.json, [args.text] if args.text else [])
    # read before the runs: a --text that is no UTF-8 text of sentences is one line, not a traceback after a run
    args.text_sentences = sentences_option(parser, "--text", args.text) if args.text else None
    # the random model and its export: removed (a killed run's: by the next run)
    with scratch_folder("bench-onnx-") as work:
        bench(args, work)


def bench(args: argparse.Namespace, work: Path) -> None:
    """The benchmark ``main`` runs, its model and export written in ``work``."""
    import onnxruntime
    import torch

    from hf_elmo import ElmoModel, batch_to_ids
    from hf_elmo.export import OnnxElmo, export_model

    torch.set_num_threads(args.threads)
    shared = shared_dir()
    if args.text_sentences is not None:
        sentences = args.text_sentences
    else:
        sentences = conll_sentences(shared / "data" / "conll2003-en" / "eng.testa", args.n_sentences)
    write_random_model(shared / "fixtures" / "elmo-options" / SIZES[args.size], work)
    model = ElmoModel.from_allennlp(work / "options.json", work / "weights.hdf5").eval()
    start = time.perf_counter()
    folder = export_model(model, work / "onnx", "onnx")
    export_s = time.perf_counter() - start
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    # ONNX Runtime's idle threads spin by default, taking the cores from eager torch in this process.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    served = OnnxElmo(folder, session_options=options)
    print(
        f"# {machine()}, {args.threads} threads, {args.size}, {len(sentences)} sentences, "
        f"{sum(map(len, sentences))} tokens, best of {args.repeat}; random weights of seed {SEED}; "
        f"torch {torch.__version__}, onnxruntime {onnxruntime.__version__}; export took {export_s:.0f} s",
        flush=True,
    )

    def eager(batch: Sequence[Sequence[str]]) -> list[np.ndarray]:
        with torch.inference_mode():
            stacked = torch.stack(model(input_ids=batch_to_ids(batch)).hidden_states, dim=1).float()
        return [stacked[row, :, : len(tokens)].numpy().copy() for row, tokens in enumerate(batch)]

    def onnx(batch: Sequence[Sequence[str]]) -> list[np.ndarray]:
        layers, _ = served(batch)
        return [layers[row, :, : len(tokens)].astype(np.float32) for row, tokens in enumerate(batch)]

    rows = []
    for batch_size in args.batch_sizes:
        batches = [sentences[i : i + batch_size] for i in range(0, len(sentences), batch_size)]
        speeds = best_tokens_per_s(
            {"eager": (eager, model.token_cache.clear), "onnx": (onnx, lambda: None)}, batches, args.repeat
        )
        row = {"batch_size": batch_size, "eager_tokens_per_s": speeds["eager"], "onnx_tokens_per_s": speeds["onnx"]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    batch_size = max(args.batch_sizes)
    batches = [sentences[i : i + batch_size] for i in range(0, len(sentences), batch_size)]
    difference = max(float(np.abs(a - b).max()) for batch in batches for a, b in zip(eager(batch), onnx(batch)))

    print("\n| size | batch | eager tok/s | ONNX Runtime tok/s | ratio |\n|---|---|---|---|---|")
    for row in rows:
        ratio = row["onnx_tokens_per_s"] / row["eager_tokens_per_s"]
        print(
            f"| {args.size} | {row['batch_size']} | {row['eager_tokens_per_s']:,.0f} | "
            f"{row['onnx_tokens_per_s']:,.0f} | {ratio:.2f}x |"
        )
    print(f"# max abs difference, ONNX Runtime vs eager, all layers, batch {batch_size}: {difference:.2g}")
    if args.json:
        write_text_atomic(
            args.json, json.dumps({"rows": rows, "max_abs_diff": difference}, indent=1), make_folders=True
        )


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
