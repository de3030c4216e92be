#!/usr/bin/env python
"""Inference speed of our ElmoModel against AllenNLP's own ELMo, side by side in one run.

For each model size (the released small and original shapes, random weights written in the
original format) and each batch size, it alternates two subprocesses on the same weight file and
the same sentences (CoNLL-2003 dev text from ../shared by default):

- AllenNLP 2.10.1's ``_ElmoBiLm`` through ``../shared/reference/allennlp/ref_embed.py --time
  --fresh`` (its own venv, made by that folder's ``setup.sh`` when missing);
- ours (this script with ``--worker``), timed with the same protocol: consecutive batches of
  B lines in file order, one untimed warm-up batch, the best of ``--repeat`` passes over the
  file; the timed region is char ids + forward + one float32 array per sentence.

Each side's peak memory is the subprocess's peak RSS (CPU) or peak allocated GPU memory. The
outputs are compared in fresh-state mode (every batch from zero state, our default): max abs
difference over all layers. With ``--bf16`` our model also runs in bfloat16 and its error
against our float32 output is printed. With ``--cuda-graphs`` ours also runs through
``hf_elmo.cuda_graphs.GraphedElmo`` (the biLM replayed from one CUDA graph per batch/length
bucket; eager off CUDA): its speed gets a column and its max abs difference from our plain
model is printed (each bucket is captured on its first batch, inside the first timed pass; the
best pass counts). Output: a Markdown table, and ``--json`` for the rows. With ``--profile DIR``
each of our timed runs (float32, eager and graphs) also profiles one more pass (token cache
cleared, graphs already captured) with ``torch.profiler`` and writes ``DIR/SIZE-bB-eager.txt`` /
``-graphs.txt``: the time of each phase of a batch (char ids, token layer, biLM, copy to the host;
host wall time and device time) and the operators that take the most device and host time,
which is what says where a GPU run's time goes (``profile_report``).

    python scripts/bench_inference.py                       # small + original, batch 1/16/64, 2 threads
    python scripts/bench_inference.py --sizes small --batch-sizes 64 --n-sentences 100
    python scripts/bench_inference.py --device cuda --reference-runner PATH  # GPU (see --help)
    python scripts/bench_inference.py --device cuda --cuda-graphs --reference-runner PATH
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from hf_elmo.fileio import scratch_folder, write_text_atomic
from hf_elmo_cli.commands._args import (
    SuggestingParser,
    check_output_option,
    exit_with_error,
    file_path,
    input_file,
    positive_int,
    sentences_option,
)

from bench_conditions import machine_apart
from shared_data import shared_dir

#: The seed of the random weights (``write_random_model``).
SEED = 0
SIZES = {
    "small": "elmo_2x1024_128_2048cnn_1xhighway_options.json",
    "original": "elmo_2x4096_512_2048cnn_2xhighway_options.json",
}


def conll_sentences(path: Path, count: int) -> list[list[str]]:
    """The first ``count`` sentences of a CoNLL-2003 file (tokens of column 1, no -DOCSTART-)."""
    sentences: list[list[str]] = []
    current: list[str] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if not fields:
                if current:
                    sentences.append(current)
                    current = []
                    if len(sentences) == count:
                        break
            elif fields[0] != "-DOCSTART-":
                current.append(fields[0])
    return sentences


def write_random_model(options_file: Path, folder: Path, seed: int = SEED) -> None:
    """A model of ``options_file``'s shapes with random weights, written in the original format."""
    import torch

    from hf_elmo import ElmoConfig, ElmoModel
    from hf_elmo.convert import save_allennlp

    torch.manual_seed(seed)
    config = ElmoConfig.from_allennlp_options(json.loads(options_file.read_text()))
    model = ElmoModel(config)
    save_allennlp(model, folder / "options.json", folder / "weights.hdf5")


# -- our side (runs in its own process) --------------------------------------------------------
def worker(argv: Sequence[str]) -> None:
    """Time ours with ref_embed.py's protocol; print ``RESULT {json}``."""
    parser = SuggestingParser(prog="bench_inference.py --worker")
    for name in ("--options", "--weights", "--sentences"):
        parser.add_argument(name, required=True)
    parser.add_argument("--batch-size", type=positive_int, required=True)
    parser.add_argument("--repeat", type=positive_int, default=3)
    parser.add_argument("--threads", type=positive_int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    parser.add_argument("--save", help="also write every sentence's layers to this .npz")
    parser.add_argument("--cuda-graphs", action="store_true", help="run the model through GraphedElmo")
    parser.add_argument("--profile", type=Path, help="also profile one pass; write its report to this file")
    args = parser.parse_args(argv)
    import torch

    from hf_elmo import ElmoModel, batch_to_ids
    from hf_elmo.cuda_graphs import GraphedElmo

    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    dtype = torch.bfloat16 if args.dtype == "bfloat16" else torch.float32
    model = ElmoModel.from_allennlp(args.options, args.weights).to(device=device, dtype=dtype).eval()  # type: ignore[call-arg]  # PreTrainedModel.to as typeshed wraps it
    with open(args.sentences, encoding="utf-8") as handle:
        sentences = [line.split() for line in handle if line.strip()]
    n_tokens = sum(map(len, sentences))

    run = GraphedElmo(model) if args.cuda_graphs else model

    def embed(batch: Sequence[Sequence[str]], mark: Callable[[str], Any] = lambda _: nullcontext()) -> list[np.ndarray]:
        """A batch's arrays; ``mark(phase)``: a context around each phase (``profile_report``'s)."""
        with mark("char ids"):
            ids = batch_to_ids(batch).to(device)
        out = run(input_ids=ids)
        with mark("to host"):
            # (B, L+1, T, 2P); both models always return hidden_states
            stacked = torch.stack(out.hidden_states, dim=1).float().cpu()  # type: ignore[arg-type]
            return [stacked[row, :, : len(tokens)].numpy().copy() for row, tokens in enumerate(batch)]

    def synchronize() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize()

    batches = [sentences[i : i + args.batch_size] for i in range(0, len(sentences), args.batch_size)]
    times = []
    with torch.inference_mode():
        embed(batches[0])  # warm-up, untimed
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        for _ in range(args.repeat):
            model.token_cache.clear()  # every pass starts with no token seen
            synchronize()
            start = time.perf_counter()
            for batch in batches:
                embed(batch)
            synchronize()
            times.append(time.perf_counter() - start)
        if args.profile:
            model.token_cache.clear()
            try:
                report = profile_report(model, run, batches, embed, device)
            except Exception as error:  # e.g. no CUPTI on the host: the timings above still count
                report = f"# no profile: {type(error).__name__}: {error}\n"
            write_text_atomic(args.profile, report)
        if args.save:
            arrays, index = {}, 0
            for batch in batches:
                for array in embed(batch):
                    arrays[f"s{index:05d}"] = array
                    index += 1
            np.savez(args.save, **arrays)  # type: ignore[arg-type]  # numpy's stub types ** as its allow_pickle too
    result = {"tokens_per_s": n_tokens / min(times), "median_tokens_per_s": n_tokens / statistics.median(times)}
    if device.type == "cuda":
        result["peak_gpu_mb"] = torch.cuda.max_memory_allocated() / 2**20
    print("RESULT " + json.dumps(result), flush=True)


#: The phases of a batch in a profile, as ``record_function`` names them.
PHASES = ("char ids", "token layer", "biLM", "to host")


def profile_report(model: Any, run: Any, batches: Sequence[Sequence[Sequence[str]]], embed: Any, device: Any) -> str:
    """One pass over ``batches`` under ``torch.profiler``, ``embed``'s phases marked: per phase its
    host wall time and device time a batch, then the top operators by device and by host time."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    from hf_elmo.modeling_elmo import runs_as_built

    def marked(name: str, function: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            with record_function(name):
                return function(*args, **kwargs)

        return call

    # instance attributes shadow the methods for this pass only (GraphedElmo's biLM is ``_bilm``); not
    # a forward or a hook, which would take the model off its fast paths (``runs_as_built``)
    model.token_embeddings = marked("token layer", model.token_embeddings)
    if run is model:
        model.contextualize = marked("biLM", model.contextualize)
    else:
        run._bilm = marked("biLM", run._bilm)
    assert runs_as_built(model.bilm) and runs_as_built(model.char_cnn), "the marks leave the fast paths on"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    try:
        with profile(activities=activities) as prof:
            for batch in batches:
                embed(batch, record_function)
            if device.type == "cuda":
                torch.cuda.synchronize()
    finally:
        del model.token_embeddings
        if run is model:
            del model.contextualize
        else:
            del run._bilm
    events = prof.key_averages()
    device_key = "self_device_time_total" if device.type == "cuda" else "self_cpu_time_total"
    lines = [f"# one pass, {len(batches)} batches, device {device}; per batch: host wall µs, device µs"]
    for event in events:
        if event.key in PHASES:
            device_us = getattr(event, "device_time_total", 0.0) if device.type == "cuda" else 0.0
            lines.append(f"{event.key}: {event.cpu_time_total / len(batches):,.0f} / {device_us / len(batches):,.0f}")
    lines.append("")
    lines.append(events.table(sort_by=device_key, row_limit=30))
    if device.type == "cuda":
        lines.append(events.table(sort_by="self_cpu_time_total", row_limit=30))
    return "\n".join(lines) + "\n"


# -- the driver --------------------------------------------------------------------------------
def run_measured(command: list[str], env: dict[str, str]) -> dict[str, float]:
    """Run ``command``; return the numbers it prints and its peak RSS in MiB (wait4's ru_maxrss)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    stdout, stderr = process.stdout.read(), process.stderr.read()  # type: ignore[union-attr]  # PIPE: never None
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} ... failed:\n{stderr[-3000:]}")
    result: dict[str, float] = {"peak_rss_mb": usage.ru_maxrss / 1024}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):  # ours
            result.update(json.loads(line[len("RESULT ") :]))
        elif line.startswith("JSON "):  # the GPU reference runner
            reference = json.loads(line[len("JSON ") :])
            result["tokens_per_s"] = reference["tokens_per_s_best"]
            if reference.get("peak_gpu_mem_bytes"):
                result["peak_gpu_mb"] = reference["peak_gpu_mem_bytes"] / 2**20
        elif line.startswith("TIME "):  # ref_embed.py
            best = line.split("tokens/s=", 1)[1].split()[0]  # the first figure is the best pass's
            result["tokens_per_s"] = float(best)
    if "tokens_per_s" not in result:
        raise RuntimeError(f"no timing in the output of {' '.join(command[:3])} ...:\n{stdout[-2000:]}")
    return result


def reference_python(args: argparse.Namespace, shared: Path) -> str:
    venv = Path(args.reference_venv).expanduser()
    if not (venv / "bin" / "python").exists():
        print(f"setting up AllenNLP's reference venv at {venv} (about 75 s) ...", flush=True)
        subprocess.run(
            ["bash", str(shared / "reference" / "allennlp" / "setup.sh")],
            check=True,
            env={**os.environ, "ALLENNLP_REF_VENV": str(venv)},
        )
    return str(venv / "bin" / "python")


def abs_differences(first: Path, second: Path) -> list[np.ndarray]:
    """Per sentence, |first - second| of two .npz files of sentence arrays (s00000, ...)."""
    with np.load(first) as a, np.load(second) as b:
        return [np.abs(a[k] - b[k]) for k in a.files if k.startswith("s")]


def bf16_error(fp32: Path, bf16: Path) -> dict[str, float]:
    diffs = abs_differences(fp32, bf16)
    return {
        "bf16_max_abs_error": float(max(d.max() for d in diffs)),
        "bf16_mean_abs_error": float(np.mean(np.concatenate([d.ravel() for d in diffs]))),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", choices=sorted(SIZES), default=["small", "original"])
    parser.add_argument("--batch-sizes", nargs="+", type=positive_int, default=[1, 16, 64])
    parser.add_argument("--n-sentences", type=positive_int, default=200, help="sentences of the CoNLL-2003 dev text")
    parser.add_argument(
        "--text", type=input_file("the file"), help="instead: a file with one tokenised sentence per line"
    )
    parser.add_argument("--threads", type=positive_int, default=2)
    parser.add_argument("--repeat", type=positive_int, default=3, help="timed passes per side (best counts)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (ours; the reference follows)")
    parser.add_argument("--bf16", action="store_true", help="also time ours in bfloat16 and report its error")
    parser.add_argument(
        "--cuda-graphs",
        action="store_true",
        help="also time ours through GraphedElmo (CUDA graphs per bucket) and report its difference from ours",
    )
    parser.add_argument("--no-reference", action="store_true", help="time ours only")
    parser.add_argument(
        "--reference-venv",
        default=os.environ.get("ALLENNLP_REF_VENV", "~/.cache/elmo-allennlp-reference"),
        help="AllenNLP's venv (made if missing)",
    )
    parser.add_argument("--reference-python", help="python that runs the reference (default: the venv's)")
    parser.add_argument(
        "--reference-runner",
        help="a reference script that takes ref_embed.py's arguments plus "
        "--device and prints ref_embed.py's TIME line or 'JSON {tokens_per_s_best, "
        "peak_gpu_mem_bytes}' (for GPUs); default: ../shared/reference/allennlp/ref_embed.py (CPU)",
    )
    parser.add_argument(
        "--json",
        type=file_path("JSON file", "rows.json"),
        help="also write the rows as JSON (rewritten after every row)",
    )
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="also profile one pass of each of our float32 runs into DIR"
    )
    args = parser.parse_args(argv)
    from hf_elmo.devices import resolve_device

    try:  # here: a device this machine lacks is one line, not a worker's traceback
        resolve_device(args.device)
    except ValueError as err:
        exit_with_error(parser, err)
    if args.json:  # before the runs, not after them
        check_output_option(parser, "argument --json", args.json, [args.text] if args.text else [])
    # read before the runs: a --text that is no UTF-8 text of sentences is one line, not a traceback after a run
    args.text_sentences = sentences_option(parser, "--text", args.text) if args.text else None

    shared = shared_dir()
    env = {
        **os.environ,
        "OMP_NUM_THREADS": str(args.threads),
        "MKL_NUM_THREADS": str(args.threads),
        "TOKENIZERS_PARALLELISM": "false",
    }
    reference = None
    if not args.no_reference:
        runner = args.reference_runner or str(shared / "reference" / "allennlp" / "ref_embed.py")
        reference = [args.reference_python or reference_python(args, shared), runner]
        if args.reference_runner:
            reference += ["--device", args.device]
    with scratch_folder("bench-inference-") as work:  # the random models: removed (a killed run's: by the next run)
        bench(args, work, shared, reference, env)


def bench(args: argparse.Namespace, work: Path, shared: Path, reference: list[str] | None, env: dict[str, str]) -> None:
    """The benchmark ``main`` runs, its text and models written in ``work``; ``reference``: the command of
    AllenNLP's side (None: ours only)."""
    if args.text_sentences is not None:
        sentences = args.text_sentences
    else:
        sentences = conll_sentences(shared / "data" / "conll2003-en" / "eng.testa", args.n_sentences)
    text = work / "sentences.txt"
    text.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
    n_tokens = sum(map(len, sentences))
    print(
        f"# {machine_apart(args.device)}, {args.threads} threads, device {args.device}, {len(sentences)} sentences, "
        f"{n_tokens} tokens, best of {args.repeat}; random weights of seed {SEED}; "
        "ratio: ours against AllenNLP's tokens/s",
        flush=True,
    )

    rows = []
    for size in args.sizes:
        folder = work / size
        folder.mkdir()
        write_random_model(shared / "fixtures" / "elmo-options" / SIZES[size], folder)
        files = [
            "--options",
            str(folder / "options.json"),
            "--weights",
            str(folder / "weights.hdf5"),
            "--sentences",
            str(text),
            "--threads",
            str(args.threads),
        ]
        ours = [sys.executable, __file__, "--worker", "--device", args.device, *files]
        for batch_size in args.batch_sizes:
            timing = ["--batch-size", str(batch_size), "--repeat", str(args.repeat)]
            row = {"size": size, "batch_size": batch_size}
            if reference is not None:  # alternate: reference, ours
                row["reference"] = run_measured(reference + files + timing + ["--time", "--fresh"], env)
            row["ours"] = run_measured(ours + timing + profiled(args.profile, size, batch_size, "eager"), env)
            if args.bf16:
                row["ours_bf16"] = run_measured(ours + timing + ["--dtype", "bfloat16"], env)
            if args.cuda_graphs:
                graphs = ["--cuda-graphs", *profiled(args.profile, size, batch_size, "graphs")]
                row["ours_graphs"] = run_measured(ours + timing + graphs, env)
            rows.append(row)
            save(rows, args.json)
            print(json.dumps(row), flush=True)
        if reference is None and not args.bf16 and not args.cuda_graphs:
            continue  # nothing to compare ours with
        # exactness, fresh state, at the largest batch size
        batch = ["--batch-size", str(max(args.batch_sizes)), "--repeat", "1"]
        ours_out = folder / "ours.npz"
        run_measured(ours + batch + ["--save", str(ours_out)], env)
        parity = {"size": size}
        if reference is not None:
            theirs = folder / "reference.npz"
            subprocess.run(
                reference + files + batch[:2] + ["--fresh", "--out", str(theirs)],
                check=True,
                env=env,
                capture_output=True,
            )
            parity["max_abs_diff_vs_allennlp"] = float(max(d.max() for d in abs_differences(ours_out, theirs)))
        if args.bf16:
            bf16_out = folder / "ours-bf16.npz"
            run_measured(ours + batch + ["--dtype", "bfloat16", "--save", str(bf16_out)], env)
            parity.update(bf16_error(ours_out, bf16_out))
        if args.cuda_graphs:
            graphs_out = folder / "ours-graphs.npz"
            run_measured(ours + batch + ["--cuda-graphs", "--save", str(graphs_out)], env)
            parity["graphs_max_abs_diff_vs_ours"] = float(max(d.max() for d in abs_differences(ours_out, graphs_out)))
        rows.append(parity)
        save(rows, args.json)
        print(json.dumps(parity), flush=True)

    print_table(rows, args)


def profiled(folder: Path | None, size: str, batch_size: int, path: str) -> list[str]:
    """The worker's ``--profile`` option for one run (none without ``--profile DIR``)."""
    if folder is None:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    return ["--profile", str(folder / f"{size}-b{batch_size}-{path}.txt")]


def save(rows: list[dict], path: Path | None) -> None:
    """Write the rows so far (a run stopped by a time limit keeps what it measured, whole: written aside and
    renamed into place)."""
    if path is not None:
        write_text_atomic(path, json.dumps(rows, indent=1), make_folders=True)


def print_table(rows: list[dict], args: argparse.Namespace) -> None:
    memory = "peak_gpu_mb" if args.device.startswith("cuda") else "peak_rss_mb"
    optional = (("ours_bf16", "bf16", args.bf16), ("ours_graphs", "graphs", args.cuda_graphs))
    variants = [(key, label) for key, label, on in optional if on]  # extra timings of ours, in columns
    header = ["size", "batch", "AllenNLP tok/s", "ours tok/s", "ratio"]
    for _, label in variants:
        header += [f"ours {label} tok/s", f"{label} ratio"]
    header += [f"AllenNLP {memory}", f"ours {memory}"]
    print("\n| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        if "ours" not in row:
            continue
        ref = row.get("reference", {})
        theirs = ref.get("tokens_per_s")
        cells = [row["size"], str(row["batch_size"]), f"{theirs:,.0f}" if theirs else "-"]
        for key in ("ours", *(key for key, _ in variants)):
            ours = row[key]["tokens_per_s"]
            cells += [f"{ours:,.0f}", f"{ours / theirs:.2f}x" if theirs else "-"]
        cells += [f"{ref[memory]:,.0f}" if memory in ref else "-", f"{row['ours'].get(memory, 0):,.0f}"]
        print("| " + " | ".join(cells) + " |")
    for row in rows:
        if "ours" not in row:
            print("# " + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2:])
    else:
        from hf_elmo_cli.commands._args import run_script

        run_script(main)
