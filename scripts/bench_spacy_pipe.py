#!/usr/bin/env python
"""Where the ELMo NER pipeline's ``nlp.pipe`` time goes, step by step, beside the raw biLM on the same
batches, in one run (BENCHMARKS.md, "Where the ELMo pipeline's nlp.pipe time goes").

The pipeline is ``spacy_elmo/configs/ner.cfg`` with ``--elmo`` (default: the shipped model), its NER
initialised on the first ``--max-train`` CoNLL-2003 training sentences (not trained: its speed does not
depend on its weights); its input, the texts of the first ``--max-eval`` sentences of eng.testb. Three
sides alternate, ``--repeat`` passes each (the median counts), the activation cache and the token cache
cleared before each pass (no hits):

- ``nlp.pipe`` over the texts at ``--batch-size``: the total, and words/s;
- the same steps called one by one on the same batches (tokenizer; the elmo component's ``predict`` and
  ``set_annotations``; NER's), the elmo component's parts timed inside it (inclusive wall seconds): the
  biLM forward (``ElmoModel.forward``), char ids (``batch_to_ids``), segments and their token-budget
  batches, the activation cache (keys, get, put), and the rest of its predict (layers stacked and
  scattered into one array per doc);
- the raw ``ElmoModel`` on the char ids the pipeline's pass gave it: forward, and one array a batch;
- with ``--full-cache``, ``nlp.pipe`` again with the activation cache full (filled, untimed, to the
  config's ``cache_mb`` with other docs' layers, as after a training epoch), so that every store evicts.

The table gives each step's seconds and share of the steps' total, then that total beside
``nlp.pipe``'s (spaCy's own work between the steps is their difference, within the machine's noise),
and, with ``--full-cache``, the full cache's ``nlp.pipe`` and its ratio to the empty cache's.
The first line names the machine and its load (``bench_conditions.machine``).

    python scripts/bench_spacy_pipe.py --threads 1 --max-eval 1000 --repeat 3
    python scripts/bench_spacy_pipe.py --threads 1 --max-eval 1000 --repeat 3 --full-cache
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import numpy as np
import torch
from bench_spacy import CONFIGS, convert
from spacy.tokens import DocBin
from spacy.training.initialize import init_nlp
from spacy.util import load_config

import spacy_elmo.bilm
import spacy_elmo.component
from hf_elmo import ElmoModel
from hf_elmo.fileio import scratch_folder
from hf_elmo.pretrained import DEFAULT_MODEL_NAME
from hf_elmo_cli.commands._args import SuggestingParser, positive_int
from spacy_elmo.cache import ActivationCache, entry_bytes
from spacy_elmo.component import ElmoComponent

from bench_conditions import alternated, machine

#: The steps of the elmo component's predict that are timed inside it, as the table names them.
INSIDE_PREDICT = {
    "forward": "biLM forward (`ElmoModel.forward`)",
    "char ids": "char ids (`batch_to_ids`)",
    "segments": "segments, sorting into token-budget batches",
    "cache": "activation cache: keys, get, put",
}


class Timers:
    """Inclusive wall seconds of the functions ``patched`` wraps, by step, while ``on``."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.on = False

    def wrap(self, step: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.on:
                return function(*args, **kwargs)
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[step] += time.perf_counter() - start

        return timed

    @contextmanager
    def patched(self, ids: list[torch.Tensor]) -> Iterator[None]:
        """The elmo component's parts wrapped (``ids``: every char-id batch the biLM is given, kept)."""

        def kept_ids(*args: Any, **kwargs: Any) -> torch.Tensor:
            result = batch_to_ids(*args, **kwargs)
            if self.on:
                ids.append(result)
            return result

        targets = [
            (ElmoModel, "forward", "forward"),
            (spacy_elmo.bilm, "batch_to_ids", "char ids"),
            (spacy_elmo.bilm, "doc_segments", "segments"),
            (spacy_elmo.bilm, "token_budget_batches", "segments"),
            (spacy_elmo.component, "doc_key", "cache"),
            (ActivationCache, "get", "cache"),
            (ActivationCache, "put", "cache"),
        ]
        batch_to_ids = spacy_elmo.bilm.batch_to_ids
        originals = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
        for owner, name, step in targets:
            function = kept_ids if name == "batch_to_ids" else getattr(owner, name)
            setattr(owner, name, self.wrap(step, function))
        try:
            yield
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elmo", default=DEFAULT_MODEL_NAME, help="the biLM (default: the shipped model)")
    parser.add_argument("--max-train", type=positive_int, default=50, help="training sentences NER is initialised on")
    parser.add_argument("--max-eval", type=positive_int, default=1000, help="eng.testb sentences piped")
    parser.add_argument("--batch-size", type=positive_int, default=64, help="nlp.pipe's docs a batch")
    parser.add_argument("--threads", type=positive_int, default=2, help="torch CPU threads")
    parser.add_argument("--repeat", type=positive_int, default=2, help="timed passes per side (the median counts)")
    parser.add_argument(
        "--full-cache",
        action="store_true",
        help="also time nlp.pipe with the activation cache full (every store evicts), beside the empty cache's",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    with scratch_folder("bench-spacy-pipe-") as work:
        paths = convert("conll2003", work, args.max_train, args.max_eval)
        overrides = {"paths.train": str(paths["train"]), "paths.dev": str(paths["dev"]), "paths.elmo": args.elmo}
        nlp = init_nlp(load_config(CONFIGS / "ner.cfg", overrides=overrides))
        texts = [doc.text for doc in DocBin().from_disk(paths["test"]).get_docs(nlp.vocab)]
    elmo, ner = nlp.get_pipe("elmo"), cast(Any, nlp.get_pipe("ner"))  # a TrainablePipe: its predict, set_annotations
    assert isinstance(elmo, ElmoComponent)
    model = spacy_elmo.bilm.get_elmo(elmo.model)
    assert model is not None
    batches = [texts[i : i + args.batch_size] for i in range(0, len(texts), args.batch_size)]
    timers, ids = Timers(), cast(list[torch.Tensor], [])
    words = 0

    def cleared() -> None:
        elmo.cache.clear()
        model.clear_caches()

    def filled() -> None:
        """The activation cache full of other docs' layers (1 MiB each), as after a training epoch."""
        cleared()
        other = np.zeros((1, 2**18), dtype=np.float32)
        for number in range(elmo.cache.max_bytes // entry_bytes(other)):
            elmo.cache.put(f"other doc {number}", other)
        model.clear_caches()

    def piped(clear: bool = True) -> None:
        nonlocal words
        if clear:
            cleared()
        words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=args.batch_size))

    def stepped() -> None:
        cleared()
        ids.clear()
        timers.seconds.clear()
        timers.on = True
        try:
            for batch in batches:
                docs = timers.wrap("tokenizer", lambda: [nlp.make_doc(text) for text in batch])()
                layers = timers.wrap("elmo predict", elmo.predict)(docs)
                timers.wrap("elmo set_annotations", elmo.set_annotations)(docs, layers)
                scores = timers.wrap("NER predict", ner.predict)(docs)
                timers.wrap("NER set_annotations", ner.set_annotations)(docs, scores)
        finally:
            timers.on = False

    def raw() -> None:
        model.clear_caches()
        with torch.no_grad():
            for batch_ids in ids:
                torch.stack(model(input_ids=batch_ids, stateful=False).hidden_states).numpy()

    steps: list[dict[str, float]] = []

    def stepped_kept() -> None:
        stepped()
        steps.append(dict(timers.seconds))

    sides: dict[str, Callable[[], object]] = {"nlp.pipe": piped, "steps": stepped_kept, "raw": raw}
    if args.full_cache:
        sides["nlp.pipe, cache full"] = lambda: piped(clear=False)
    with timers.patched(ids):  # the warm-up: stepped(), which gives the char ids that raw() runs on
        median = alternated(sides, args.repeat, warm_up=stepped, untimed={"nlp.pipe, cache full": filled})
    step = {key: statistics.median(s.get(key, 0.0) for s in steps) for key in {k for s in steps for k in s}}
    total = median["nlp.pipe"]
    rows = [(INSIDE_PREDICT[key], step.get(key, 0.0)) for key in INSIDE_PREDICT]
    rows.append(
        ("the rest of elmo's predict (layers stacked, scattered)", step["elmo predict"] - sum(s for _, s in rows))
    )
    rows += [
        ("elmo `set_annotations` (`doc._.elmo`, `doc.tensor`, vector hooks)", step["elmo set_annotations"]),
        ("NER `predict` (its listener and scalar mix inside)", step["NER predict"]),
        ("NER `set_annotations`", step["NER set_annotations"]),
        ("tokenizer", step["tokenizer"]),
    ]
    steps_total = sum(seconds for _, seconds in rows)
    print(
        f"# {machine()}, {args.threads} torch thread(s); {args.elmo}; {len(texts):,} eng.testb sentences, "
        f"{words:,} words, batch {args.batch_size}; median of {args.repeat} alternating passes a side\n"
    )
    print("| step of `nlp.pipe` | seconds | share |\n|---|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.2f} | {100 * seconds / steps_total:.1f}% |")
    print(f"| **the steps, called one by one** | **{steps_total:.2f}** | |")
    print(f"| **`nlp.pipe`: {words / total:,.0f} words/s** | **{total:.2f}** | |")
    print(f"| raw `ElmoModel` on the same batches: **{words / median['raw']:,.0f} tokens/s** | {median['raw']:.2f} | |")
    if args.full_cache:
        full = median["nlp.pipe, cache full"]
        print(
            f"| `nlp.pipe`, the activation cache full (every store evicts): **{words / full:,.0f} words/s**, "
            f"{total / full:.2f}x the empty cache's | {full:.2f} | |"
        )


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
