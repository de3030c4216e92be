#!/usr/bin/env python
"""Where ``elmo embed`` spends its time, phase by phase, in µs a token of the input, and its peak RSS.

Each run is ``elmo embed INPUT OUT --overwrite --no-progress`` (with the options this script does
not know, passed on: ``--layers``, ``--device``, ``--threads``, ``--cuda-graphs``, ...) in a
subprocess of its own (``--worker``) whose phases' functions are wrapped in timers (wall time; a
phase inside another is taken out of it). ``--stub-model`` replaces the biLM's forward with zeros of
its output's shape: what is left is the host's own cost, the ceiling it puts on a fast GPU.
``--stub-device-us US`` makes the stub also wait US µs a token without holding the GIL, as a call
waits for a GPU: a device of known speed, for a change meant to overlap the host's work with it.
The peak RSS is the worker's (``ru_maxrss``): the whole run, Python, torch and the model included.
``--against CHECKOUT`` runs another checkout's code (e.g. a worktree of the commit before a
change) the same way, run for run alternating with this one's, in a column beside it. The run
of least total time counts, per side.

    python scripts/bench_embed.py conll.txt --stub-model --threads 1 --layers average
    python scripts/bench_embed.py conll.txt --stub-model --against ../old --repeat 3 --layers average
    python scripts/bench_embed.py big.txt --device cuda --cuda-graphs --layers average   # the real model
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench_conditions import machine

REPO = Path(__file__).resolve().parent.parent
#: The functions timed, by module, and the phase each is; "stream": embed_sentences' arrays, pulled
#: while the chunk files are written ("write chunk files" is _write_part less the stream).
WRAPPED = {
    ("hf_elmo.loading", "load_bilm"): "load model",
    ("hf_elmo.embed", "unsplit_tokens"): "raw-text check",
    ("hf_elmo.embed.run", "scan_input"): "scan input",
    ("hf_elmo.embed.sentences", "batch_to_ids"): "char ids",
    ("hf_elmo.embed.run", "_write_part"): "write chunk files",
    ("hf_elmo.embed.run", "_merge"): "merge into output",
    ("hf_elmo.embed.run", "_finish"): "finish",
}
#: The rows of the table, in order; "batching, arrays" is the stream less char ids and forward.
ROWS = (
    "load model",
    "raw-text check",
    "scan input",
    "char ids",
    "forward",
    "batching, arrays",
    "write chunk files",
    "merge into output",
    "finish",
    "other",
)


def worker(
    input_path: Path, work: Path, stub_model: bool, device_us: float, embed_options: Sequence[str]
) -> dict[str, Any]:
    """One instrumented ``elmo embed`` run in this process, its output written in ``work`` (the folder of
    ``main``'s run, which outlives the checkout's code: ``--against`` one without ``scratch_folder``) and
    removed: seconds per phase, and the total."""
    import torch

    import hf_elmo
    import hf_elmo.embed.run
    import hf_elmo.embed.sentences
    from hf_elmo.cli import main

    # "stream in writing": the part of the stream pulled inside _write_part (groupby pulls a chunk's
    # first array before its _write_part begins, so the stream is not all inside it)
    spent = dict.fromkeys(["stream", "stream in writing", "forward", *WRAPPED.values()], 0.0)
    writing = [0]  # how many _write_part calls are running

    def timed(phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            writing[0] += phase == "write chunk files"
            try:
                return function(*args, **kwargs)
            finally:
                writing[0] -= phase == "write chunk files"
                spent[phase] += time.perf_counter() - start

        return call

    for (module, name), phase in WRAPPED.items():
        owner = importlib.import_module(module)
        setattr(owner, name, timed(phase, getattr(owner, name)))

    def forward_of(model: Any, forward: Callable[..., Any]) -> Callable[..., Any]:
        layers, width = model.config.n_layers + 1, 2 * model.config.projection_dim

        def stub(input_ids: torch.Tensor, **_: Any) -> SimpleNamespace:
            mask = (input_ids > 0).any(-1)
            zeros = [torch.zeros(*mask.shape, width, device=mask.device, dtype=model.dtype) for _ in range(layers)]
            time.sleep(device_us * 1e-6 * int(mask.sum()))  # a device's time: the GIL is free meanwhile
            return SimpleNamespace(hidden_states=tuple(zeros), attention_mask=mask)

        def synchronized(**kwargs: Any) -> Any:
            output = (stub if stub_model else forward)(**kwargs)
            if kwargs["input_ids"].is_cuda:  # its time, not the next copy's
                torch.cuda.synchronize(kwargs["input_ids"].device)
            return output

        return timed("forward", synchronized)

    embed_stream = hf_elmo.embed.sentences._embed_stream
    ran: dict[str, Any] = {}  # what elmo embed ran with, its defaults where an option was not passed

    def stream(
        model: Any, forward: Callable[..., Any], sentences: Any, layers: str, tokens_per_batch: int, *rest: Any
    ) -> Any:
        ran.update(device=str(model.device), tokens_per_batch=tokens_per_batch)
        return embed_stream(model, forward_of(model, forward), sentences, layers, tokens_per_batch, *rest)

    hf_elmo.embed.sentences._embed_stream = stream  # type: ignore[assignment]  # its arguments, passed on
    embed_sentences = hf_elmo.embed.run.embed_sentences

    def pulled(*args: Any, **kwargs: Any) -> Iterator[Any]:
        arrays = embed_sentences(*args, **kwargs)
        while True:
            start = time.perf_counter()
            try:
                array = next(arrays)
            except StopIteration:
                return
            finally:
                spent["stream"] += time.perf_counter() - start
                if writing[0]:
                    spent["stream in writing"] += time.perf_counter() - start
            yield array

    hf_elmo.embed.run.embed_sentences = pulled
    try:
        start = time.perf_counter()
        status = main(
            ["embed", str(input_path), str(work / "out.hdf5"), "--overwrite", "--no-progress", *embed_options]
        )
        total = time.perf_counter() - start
    finally:
        (work / "out.hdf5").unlink(missing_ok=True)
    if status != 0:  # elmo embed said why, in its one line
        raise SystemExit(status)
    phases = {
        **{phase: spent[phase] for phase in ("load model", "raw-text check", "scan input", "char ids", "forward")},
        "batching, arrays": spent["stream"] - spent["char ids"] - spent["forward"],
        "write chunk files": spent["write chunk files"] - spent["stream in writing"],
        **{phase: spent[phase] for phase in ("merge into output", "finish")},
    }
    phases["other"] = total - sum(phases.values())
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {
        "code": str(Path(hf_elmo.__file__).parent.parent),
        **ran,
        "threads": torch.get_num_threads(),  # --threads, else torch's own
        "total": total,
        "phases": phases,
        "peak_rss_mb": peak_rss_mb,
    }


def run_side(checkout: Path, args: argparse.Namespace, work: Path, embed_options: Sequence[str]) -> dict[str, Any]:
    """One worker subprocess on ``checkout``'s code, writing in ``work``; its record."""
    command = [sys.executable, str(Path(__file__).resolve()), str(args.input), "--worker", "--work", str(work)]
    command += embed_options
    if args.stub_model:
        command += ["--stub-model", "--stub-device-us", str(args.stub_device_us)]
    path = os.pathsep.join([str(checkout), *filter(None, [os.environ.get("PYTHONPATH")])])
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path})
    if result.returncode != 0:  # its last line says why: elmo embed's error, a traceback's exception
        said = next((line for line in reversed(result.stderr.splitlines()) if line.strip()), "it said nothing")
        raise ChildProcessError(f"the run on {checkout} failed (exit {result.returncode}): {said.strip()}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def model_files(embed_options: Sequence[str]) -> list[Path]:
    """The files of the local model that elmo embed is given (``--model``, passed on), which ``--json`` must not
    write over: all under its folder, or its one file; none without ``--model``."""
    model_option = argparse.ArgumentParser(add_help=False)
    model_option.add_argument("--model")
    model = model_option.parse_known_args(list(embed_options))[0].model
    if model is None:
        return []
    path = Path(model)
    return [file for file in path.rglob("*") if file.is_file()] if path.is_dir() else [path]


def main(argv: Sequence[str] | None = None, parser_class: type[argparse.ArgumentParser] | None = None) -> None:
    """The benchmark, or with ``--worker`` one of its runs; ``parser_class``: the command line's parser, a worker's
    plain ``argparse`` (None: ``SuggestingParser``, whose usage errors and ``--help`` are said as every script's)."""
    if parser_class is None:
        from hf_elmo_cli.commands._args import SuggestingParser

        parser_class = SuggestingParser
    parser = parser_class(
        prog=Path(__file__).name,
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Other options are elmo embed's, passed on to every run.",
    )
    parser.add_argument("input", type=Path, help="a text file of elmo embed: one tokenised sentence a line")
    parser.add_argument("--stub-model", action="store_true", help="zeros for the biLM's forward: the host's cost")
    parser.add_argument(
        "--stub-device-us",
        default=0.0,
        help="with --stub-model: also wait this many µs a token, the GIL free, as for a GPU (default 0)",
    )
    parser.add_argument("--against", type=Path, help="another checkout, run the same way beside this one")
    parser.add_argument("--repeat", default=1, help="runs per side (the fastest counts)")
    parser.add_argument("--json", help="also write the records as JSON")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)  # a worker's: where it writes
    args, embed_options = parser.parse_known_args(argv)
    if args.worker:
        print(json.dumps(worker(args.input, args.work, args.stub_model, float(args.stub_device_us), embed_options)))
        return
    # checked here, not as the options' types: a worker imports the checkout it times (--against: maybe
    # one without these), and is given the values checked here
    from hf_elmo.fileio import scratch_folder, write_text_atomic
    from hf_elmo_cli.commands._args import check_output_option, exit_with_error, file_path, non_negative, positive_int

    checks = {"--repeat": positive_int, "--stub-device-us": non_negative, "--json": file_path("JSON file", "rows.json")}
    for option, check in checks.items():
        dest = option[2:].replace("-", "_")
        if getattr(args, dest) is not None:
            try:
                setattr(args, dest, check(str(getattr(args, dest))))
            except argparse.ArgumentTypeError as err:
                parser.error(f"argument {option}: {err}")
    if args.json:  # before the runs, not after them
        check_output_option(parser, "argument --json", args.json, [args.input, *model_files(embed_options)])

    sides = {"this checkout": REPO, **({str(args.against): args.against.resolve()} if args.against else {})}
    best: dict[str, dict[str, Any]] = {}
    with scratch_folder("bench-embed-") as work:  # the outputs: removed (a killed run's: by the next run)
        for _ in range(args.repeat):
            for name, checkout in sides.items():
                try:
                    record = run_side(checkout, args, work, embed_options)
                except ChildProcessError as err:
                    exit_with_error(parser, err)
                if name not in best or record["total"] < best[name]["total"]:
                    best[name] = record
    ran = best["this checkout"]  # the options are the same on every side
    with open(args.input, encoding="utf-8") as handle:
        lines, tokens = 0, 0
        for line in handle:
            lines, tokens = lines + 1, tokens + len(line.split())
    print(
        f"# {args.input}: {lines:,} lines, {tokens:,} tokens; elmo embed {' '.join(embed_options) or '(defaults)'}"
        f"{'; biLM forward stubbed (zeros)' if args.stub_model else ''}"
        f"{f', waiting {args.stub_device_us:g} µs a token as a device' if args.stub_model and args.stub_device_us else ''}"
        f"; {machine(ran['device'])}, {ran['threads']} threads, {ran['tokens_per_batch']:,} padded tokens a batch; "
        f"fastest of {args.repeat} run(s) per side, alternating"
    )
    for name, record in best.items():
        print(f"# {name}: {record['code']}")
    names = list(best)

    def row(label: str, values: dict[str, float], form: str = "{:.1f}") -> None:
        print(f"| {label} | {' | '.join(form.format(values[name]) for name in names)} |")

    print(f"\n| phase | {' | '.join(f'{name}, µs/token' for name in names)} |\n|---{'|---' * len(names)}|")
    for phase in ROWS:
        row(phase, {name: best[name]["phases"][phase] / tokens * 1e6 for name in names})
    row("**total**", {name: best[name]["total"] / tokens * 1e6 for name in names})
    host = {name: (best[name]["total"] - best[name]["phases"]["forward"]) / tokens * 1e6 for name in names}
    row("**host: total less forward**", host)
    row("tokens/s", {name: tokens / best[name]["total"] for name in names}, "{:,.0f}")
    if len(names) > 1:
        row(
            "tokens/s against this checkout",
            {name: best[names[0]]["total"] / best[name]["total"] for name in names},
            "{:.2f}x",
        )
    row("peak RSS, MiB", {name: best[name]["peak_rss_mb"] for name in names}, "{:,.0f}")
    if args.json:
        report = json.dumps({"lines": lines, "tokens": tokens, "sides": best}, indent=1)
        write_text_atomic(args.json, report, make_folders=True)


if __name__ == "__main__":
    if "--worker" in sys.argv:  # on the checkout it times (--against: maybe one without hf_elmo_cli's helpers)
        main(parser_class=argparse.ArgumentParser)
    else:
        from hf_elmo_cli.commands._args import run_script

        run_script(main)
