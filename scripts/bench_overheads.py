#!/usr/bin/env python
"""Costs that the package's docs and code comments state as ratios, each measured against what it is
compared with in one run: the two sides alternate, ``--repeat`` passes each, the median pass counts,
so that the machine's load weighs on both alike. The shipped model, on the CPU, ``--threads`` torch
threads; the first line names the machine and its load (``bench_conditions.machine``).

- ``hook``: inference, then training, with transformers' input-embedding hook
  (``PreTrainedModel.enable_input_require_grads``, which ``ElmoModel`` makes a no-op) against without:
  the hook makes the model run its plain path (the token cache and the fast char CNN off). Batches of
  ``--batch-size`` of the first ``--n-sentences`` CoNLL-2003 dev sentences, ``embed_sentences``-like:
  char ids, forward under ``no_grad``, the token cache cleared before each pass; in training (the biLM
  fine-tuned, in training mode), forward and the backward of the top layer's sum.
- ``long-doc``: the first ``--doc-tokens`` tokens of the CoNLL-2003 dev text read as one sequence (a doc
  without sentence boundaries, as spacy_elmo reads it) against the same tokens in their sentences,
  both through ``embed_sentences`` (the token cache cleared before each pass).
- ``hdf5-write``: writing one chunk of ``elmo embed`` (``--n-sentences`` lines of float32 vectors of the
  shipped model's shape, every layer) with h5py's ``create_dataset`` a line against the low-level calls
  that ``hf_elmo.embed.run`` makes.
- ``float16``: the shipped model loaded with ``dtype=torch.float16`` against float32 on the CPU (the slowdown
  that a float16 model's warning on the CPU states): batches of ``--batch-size`` of the first
  ``--n-sentences`` CoNLL-2003 dev sentences, char ids and forward under ``no_grad``, the token cache
  cleared before each pass.

    python scripts/bench_overheads.py hook
    python scripts/bench_overheads.py long-doc --repeat 3
    python scripts/bench_overheads.py hdf5-write --n-sentences 2000
    python scripts/bench_overheads.py float16 --n-sentences 64 --batch-size 64 --repeat 2
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from hf_elmo import ElmoModel
from hf_elmo_cli.commands._args import SuggestingParser, positive_int

from bench_conditions import alternated, machine
from bench_inference import conll_sentences
from shared_data import shared_dir


def report(title: str, seconds: dict[str, float], unit: str, count: int) -> None:
    """A table of the sides' median seconds, ``count`` ``unit`` each pass, and each one's ratio to the first."""
    first = next(iter(seconds.values()))
    print(f"\n{title}\n\n| side | median s a pass | {unit} | against the first |\n|---|---|---|---|")
    for name, value in seconds.items():
        print(f"| {name} | {value:.3f} | {value / count * 1e6:,.1f} µs | {value / first:.2f}x |")


def load_model(dtype: torch.dtype | None = None) -> ElmoModel:
    from hf_elmo.pretrained import DEFAULT_MODEL

    return ElmoModel.from_pretrained(DEFAULT_MODEL, dtype=dtype).eval()


def batched_passes(model: ElmoModel, sentences: list[list[str]], batch_size: int) -> Callable[[], None]:
    """A pass of ``model`` over ``sentences`` in batches of ``batch_size``: char ids and forward under
    ``no_grad``, the token cache cleared first."""
    from hf_elmo.char_ids import batch_to_ids

    batches = [sentences[i : i + batch_size] for i in range(0, len(sentences), batch_size)]

    def run() -> None:
        model.clear_caches()
        with torch.no_grad():
            for batch in batches:
                model(batch_to_ids(batch, model.config.max_characters_per_token))

    return run


def bench_hook(args: argparse.Namespace, sentences: list[list[str]]) -> None:
    from transformers import PreTrainedModel

    from hf_elmo.char_ids import batch_to_ids

    model = load_model()
    run = batched_passes(model, sentences, args.batch_size)
    batches = [sentences[i : i + args.batch_size] for i in range(0, len(sentences), args.batch_size)]

    def train() -> None:
        model.train()
        try:
            for batch in batches:
                model(batch_to_ids(batch, model.config.max_characters_per_token)).last_hidden_state.sum().backward()
            model.zero_grad(set_to_none=True)
        finally:
            model.eval()

    def hooked(side: Callable[[], None]) -> Callable[[], None]:
        def with_hook() -> None:
            PreTrainedModel.enable_input_require_grads(model)  # transformers' own, not ElmoModel's no-op
            try:
                side()
            finally:
                model.disable_input_require_grads()

        return with_hook

    tokens = sum(map(len, sentences))
    for title, side in (("Inference", run), ("Training (forward and backward)", train)):
        seconds = alternated({"no hook": side, "transformers' input-embedding hook": hooked(side)}, args.repeat)
        report(f"{title}, {len(sentences)} sentences in batches of {args.batch_size}", seconds, "a token", tokens)


def bench_long_doc(args: argparse.Namespace, sentences: list[list[str]]) -> None:
    from hf_elmo.embed import embed_sentences

    model = load_model()
    kept, total = [], 0
    for sentence in sentences:
        kept.append(sentence[: args.doc_tokens - total])
        total += len(kept[-1])
        if total == args.doc_tokens:
            break
    whole = [word for sentence in kept for word in sentence]

    def read(segments: list[list[str]]) -> Callable[[], None]:
        def run() -> None:
            model.clear_caches()
            for _ in embed_sentences(model, segments):
                pass

        return run

    seconds = alternated({"in its sentences": read(kept), "read whole": read([whole])}, args.repeat)
    report(f"A doc of {len(whole):,} tokens ({len(kept):,} sentences)", seconds, "a token", len(whole))


def bench_float16(args: argparse.Namespace, sentences: list[list[str]]) -> None:
    sides: dict[str, Callable[[], object]] = {
        "float32": batched_passes(load_model(), sentences, args.batch_size),
        "float16": batched_passes(load_model(torch.float16), sentences, args.batch_size),
    }
    seconds = alternated(sides, args.repeat)
    tokens = sum(map(len, sentences))
    report(f"The CPU, {len(sentences)} sentences in batches of {args.batch_size}", seconds, "a token", tokens)


def bench_hdf5_write(args: argparse.Namespace, sentences: list[list[str]], folder: Path) -> None:
    import h5py
    from tqdm.auto import tqdm

    from hf_elmo import ElmoConfig
    from hf_elmo.embed.run import _write_part
    from hf_elmo.pretrained import DEFAULT_MODEL

    config = ElmoConfig.from_pretrained(DEFAULT_MODEL)
    shape = (config.num_hidden_layers + 1, 2 * config.projection_dim)  # the layers, the width of each
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((shape[0], len(sentence), shape[1]), dtype=np.float32) for sentence in sentences]
    items = [((index, sentence), array) for index, (sentence, array) in enumerate(zip(sentences, arrays))]

    def high_level() -> None:
        with h5py.File(folder / "high.hdf5", "w") as part:
            for (index, _), array in items:
                part.create_dataset(str(index), data=array)

    def low_level() -> None:
        with tqdm(disable=True) as bar:
            _write_part(folder / "low.hdf5", items, bar)

    seconds = alternated({"elmo embed's low-level calls": low_level, "create_dataset": high_level}, args.repeat)
    report(f"A chunk of {len(items):,} lines written", seconds, "a line", len(items))


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["hook", "long-doc", "hdf5-write", "float16"])
    parser.add_argument(
        "--n-sentences", type=positive_int, default=320, help="CoNLL-2003 dev sentences (hook, hdf5, float16)"
    )
    parser.add_argument("--batch-size", type=positive_int, default=16, help="sentences a batch (hook, float16)")
    parser.add_argument("--doc-tokens", type=positive_int, default=10_000, help="the long doc's tokens (long-doc)")
    parser.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    parser.add_argument("--repeat", type=positive_int, default=5, help="timed passes per side (the median counts)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    count = 10**9 if args.what == "long-doc" else args.n_sentences  # long-doc: as many as its tokens take
    sentences = conll_sentences(shared_dir() / "data" / "conll2003-en" / "eng.testa", count)
    print(f"# {machine()}, {args.threads} torch thread(s); median of {args.repeat} alternating passes a side")
    if args.what == "hook":
        bench_hook(args, sentences)
    elif args.what == "long-doc":
        bench_long_doc(args, sentences)
    elif args.what == "float16":
        bench_float16(args, sentences)
    else:
        from hf_elmo.fileio import scratch_folder

        with scratch_folder("bench-overheads-") as folder:
            bench_hdf5_write(args, sentences, folder)


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
