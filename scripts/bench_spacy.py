r"""Baseline vs ELMo spaCy pipelines, same settings and seed: F1 / accuracy and seconds per epoch.

    python scripts/bench_spacy.py --elmo ../shared/fixtures/elmo-allennlp --tasks conll2003 sst2 sst5 \
        --max-train 2000 --max-eval 500 --epochs 3 --output bench-spacy/

Trains ``spacy_elmo/configs/{ner,textcat}_baseline.cfg`` and ``{ner,textcat}.cfg`` on CoNLL-2003
(eng.train, dev eng.testa, test eng.testb) and SST-2 / SST-5 (the sentence-level files,
lower-cased) from ../shared (or $ELMO_SHARED); ``sst2-trees`` is SST-2's same sentences and labels
read from the treebank in their original casing, ``sst2-phrases`` trains on every distinct
non-neutral phrase of the training trees (77,616 docs: GLUE's way of building SST-2's training
set) and scores those cased dev and test sentences. Each trains for a fixed number of epochs,
then prints a Markdown table: dev and test
score (NER: entity F1; SST: accuracy) and seconds per epoch, wall-clock and CPU time of the
process (robust on a shared machine), for the first epoch (the biLM runs over every training
doc and fills the activation cache) and the mean of the later ones (cache hits). Epoch times
exclude evaluation. Under the table, a line a task run with both pipelines gives ELMo's dev and
test score minus the baseline's and its nlp.pipe words/s and first epoch's CPU seconds as ratios
to the baseline's; the line above it names the machine, its load before the runs, the seed and
the threads. ``--max-train`` / ``--max-eval`` cap the sentences read (trees, for
``sst2-phrases``' training split). ``--elmo`` is checked first, as the ELMo pipelines' loader checks
it (``spacy_elmo.loader.find_model``): a name it refuses stops the script before anything trains.

After training, ``nlp.pipe`` runs once, timed, over the test split's texts (``--pipe-batch-size``
docs a batch; before any evaluation, so the biLM computes every doc: no cache hits): words/s
counts the tokens of the docs it returns. With ``--gpu-id N`` the table also gives the peak GPU
memory of each pipeline's run (``torch.cuda.max_memory_allocated`` from initialisation to the
end of evaluation; spaCy's ``gpu_allocator = "pytorch"`` puts thinc's arrays in torch's pool
too); on CPU it is "-".

Each ELMo pipeline's learned layer weights (softmax(s) and gamma of its scalar mix, the paper's
Figure 2) go into ``results.json``; ``--plot-layer-weights PNG`` also draws them, one panel per
task (``spacy_elmo.layer_weights``; needs matplotlib).

``--pipelines elmo`` trains the ELMo pipelines only (the baselines do not depend on the biLM, so
earlier baseline rows of the same settings and seed stand). ``--listener KEY=VALUE`` replaces a
setting of the ELMo pipelines' mix listener (``layer_norm``, ``dropout``, ``l2``; the value is
read as JSON, else as a string), for tuning them on dev:

    python scripts/bench_spacy.py --elmo hf-elmo:elmo-2x1024-en --tasks sst2 --pipelines elmo \
        --listener dropout=0.0 --listener layer_norm=token
"""

import argparse
import json
import random
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import spacy
import torch
from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.training.initialize import init_nlp
from spacy.util import fix_random_seed, load_config, registry
from spacy.vocab import Vocab

from hf_elmo.fileio import folder_for_the_run, scratch_folder, strict_json, write_text_atomic
from hf_elmo.messages import error_text, quoted
from hf_elmo_cli.commands._args import SuggestingParser, check_output_option, file_path, integer_at_least, positive_int
from spacy_elmo.corpora import read_conll2003, read_sst, read_sst2_phrases, read_sst2_trees
from spacy_elmo.layer_weights import MixWeights, check_figure_output, mix_weights, save_layer_weights
from spacy_elmo.loader import find_model

from bench_conditions import machine
from shared_data import REPO, shared_dir

CONFIGS = REPO / "spacy_elmo" / "configs"
SPLITS = ("train", "dev", "test")
#: A reader of ``spacy_elmo.corpora``: (path, vocab, at most this many sentences) -> Docs.
Reader = Callable[[Path, Vocab, int | None], Iterator[Doc]]
TASKS: dict[str, tuple[str, str, tuple[tuple[Reader, str], ...]]] = {
    # name: (pipeline task, folder under shared/data, ((reader, file) of train, dev, test))
    "conll2003": (
        "ner",
        "conll2003-en",
        tuple((read_conll2003, name) for name in ("eng.train", "eng.testa", "eng.testb")),
    ),
    "sst2": ("textcat", "sst/sentence-level", tuple((read_sst, f"stsa.binary.{split}") for split in SPLITS)),
    "sst5": ("textcat", "sst/sentence-level", tuple((read_sst, f"stsa.fine.{split}") for split in SPLITS)),
    # SST-2 from the treebank: the same sentences and labels in their original casing, trained on
    # the sentences or on every distinct non-neutral phrase of the training trees (as GLUE's SST-2)
    "sst2-trees": ("textcat", "sst/trees", tuple((read_sst2_trees, f"{split}.txt") for split in SPLITS)),
    "sst2-phrases": (
        "textcat",
        "sst/trees",
        ((read_sst2_phrases, "train.txt"), *((read_sst2_trees, f"{s}.txt") for s in SPLITS[1:])),
    ),
}
PIPELINES = ("baseline", "elmo")
LISTENER_SETTINGS = ("layer_norm", "dropout", "l2")
#: Where the mix listener sits in a task component's config (spacy_elmo/configs/{ner,textcat}.cfg).
LISTENER_PATH = ("model", "tok2vec", "elmo")
#: What the run writes last into ``--output``: every pipeline's figures.
RESULTS = "results.json"


def convert(task: str, output: Path, max_train: int, max_eval: int) -> dict[str, Path]:
    """Write the task's train/dev/test splits (capped) as .spacy files in the folder ``output`` (the run's scratch
    folder); return their paths."""
    _, folder, files = TASKS[task]
    vocab = spacy.blank("en").vocab
    paths = {}
    for split, (reader, name), cap in zip(SPLITS, files, (max_train, max_eval, max_eval)):
        paths[split] = output / f"{task}.{split}.spacy"
        DocBin(docs=reader(shared_dir() / "data" / folder / name, vocab, cap)).to_disk(paths[split])
    return paths


def score(nlp: Language, examples: list[Example], pipe_task: str) -> float:
    """Entity F1 (NER) or accuracy (exclusive text classes), in percent."""
    if pipe_task == "ner":
        return 100.0 * nlp.evaluate(examples)["ents_f"]
    docs = nlp.pipe(eg.reference.text for eg in examples)
    hits = [
        max(doc.cats, key=doc.cats.__getitem__) == max(eg.reference.cats, key=eg.reference.cats.__getitem__)
        for doc, eg in zip(docs, examples)
    ]
    return 100.0 * sum(hits) / len(hits)


def pipe_words_per_second(nlp: Language, paths: dict[str, Path], batch_size: int) -> float:
    """Tokens a second of one timed ``nlp.pipe`` pass over the test split's texts."""
    texts = [doc.text for doc in DocBin().from_disk(paths["test"]).get_docs(nlp.vocab)]
    start = time.perf_counter()
    words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=batch_size))
    return words / (time.perf_counter() - start)


def run(task: str, with_elmo: bool, paths: dict[str, Path], args: argparse.Namespace) -> dict[str, Any]:
    pipe_task = TASKS[task][0]
    on_gpu = args.gpu_id >= 0
    if on_gpu:
        torch.cuda.reset_peak_memory_stats(args.gpu_id)
    config_path = CONFIGS / (f"{pipe_task}.cfg" if with_elmo else f"{pipe_task}_baseline.cfg")
    overrides = {"paths.train": str(paths["train"]), "paths.dev": str(paths["dev"]), "system.seed": args.seed}
    if with_elmo:
        overrides["paths.elmo"] = str(args.elmo)
        listener = ".".join(("components", pipe_task, *LISTENER_PATH))
        overrides.update({f"{listener}.{key}": value for key, value in args.listener})
    config = load_config(config_path, overrides=overrides)
    fix_random_seed(args.seed)
    nlp = init_nlp(config, use_gpu=args.gpu_id)
    training = registry.resolve(config["training"])
    batcher, optimizer = training["batcher"], training["optimizer"]
    vocab = nlp.vocab
    train = [Example(nlp.make_doc(d.text), d) for d in DocBin().from_disk(paths["train"]).get_docs(vocab)]
    seconds, cpu_seconds = [], []
    for epoch in range(args.epochs):
        random.Random(args.seed + epoch).shuffle(train)
        start, cpu_start = time.perf_counter(), time.process_time()
        for batch in batcher(train):
            nlp.update(batch, drop=training["dropout"], sgd=optimizer)
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)
    result = {
        "task": task,
        "pipeline": "ELMo" if with_elmo else "baseline",
        "epoch_seconds": seconds,
        "epoch_cpu_seconds": cpu_seconds,
        "pipe_words_per_second": pipe_words_per_second(nlp, paths, args.pipe_batch_size),
        "pipe_batch_size": args.pipe_batch_size,
    }
    for split in ("dev", "test"):
        gold = [Example(nlp.make_doc(d.text), d) for d in DocBin().from_disk(paths[split]).get_docs(vocab)]
        result[split] = score(nlp, gold, pipe_task)
    result["peak_gpu_mib"] = torch.cuda.max_memory_allocated(args.gpu_id) / 2**20 if on_gpu else None
    if with_elmo:  # the mix listener's settings as the pipeline was built (``--listener`` included)
        listener_cfg = nlp.config["components"][pipe_task]
        for part in LISTENER_PATH:
            listener_cfg = listener_cfg[part]
        result["listener"] = {key: listener_cfg[key] for key in LISTENER_SETTINGS}
        result["layer_weights"] = [
            {"component": mix.component, "weights": mix.weights.tolist(), "gamma": mix.gamma}
            for mix in mix_weights(nlp)
        ]
    return result


def plot_layer_weights(results: list[dict[str, Any]], output: Path, seed: int) -> None:
    """One panel per ELMo pipeline's scalar mix, titled with its task, into the PNG ``output``."""
    mixes = [
        MixWeights(f"{r['task']} (seed {seed})", np.asarray(mix["weights"]), mix["gamma"])
        for r in results
        for mix in r.get("layer_weights", [])
    ]
    save_layer_weights(mixes, output)


def first_and_later(seconds: list[float]) -> str:
    """``first / mean of the later epochs`` of a list of epoch times."""
    later = f"{sum(seconds[1:]) / len(seconds[1:]):.1f}" if len(seconds) > 1 else "-"
    return f"{seconds[0]:.1f} / {later}"


def table(results: list[dict[str, Any]]) -> str:
    rows = [
        "| task | pipeline | dev | test | wall s/epoch: epoch 1 / later | CPU s/epoch: epoch 1 / later "
        "| peak GPU MiB | nlp.pipe words/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        memory = "-" if r["peak_gpu_mib"] is None else f"{r['peak_gpu_mib']:,.0f}"
        rows.append(
            f"| {r['task']} | {r['pipeline']} | {r['dev']:.1f} | {r['test']:.1f} "
            f"| {first_and_later(r['epoch_seconds'])} | {first_and_later(r['epoch_cpu_seconds'])} "
            f"| {memory} | {r['pipe_words_per_second']:,.0f} |"
        )
    return "\n".join(rows)


def gains(results: list[dict[str, Any]]) -> list[str]:
    """One line a task run with both pipelines: ELMo's dev and test score minus the baseline's, and
    its nlp.pipe words/s and first epoch's CPU seconds as ratios to the baseline's."""
    by_task: dict[str, dict[str, dict[str, Any]]] = {}
    for r in results:
        by_task.setdefault(r["task"], {})[r["pipeline"]] = r
    return [
        f"{task}: ELMo minus baseline dev {elmo['dev'] - base['dev']:+.1f}, test {elmo['test'] - base['test']:+.1f}; "
        f"ELMo against baseline: nlp.pipe words/s "
        f"{elmo['pipe_words_per_second'] / base['pipe_words_per_second']:.2f}x, "
        f"CPU s of epoch 1 {elmo['epoch_cpu_seconds'][0] / base['epoch_cpu_seconds'][0]:.2f}x"
        for task, pipelines in by_task.items()
        if {"ELMo", "baseline"} <= set(pipelines)
        for elmo, base in [(pipelines["ELMo"], pipelines["baseline"])]
    ]


def listener_setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--listener``: one of ``LISTENER_SETTINGS``, the value read as JSON
    (``null``, ``0.2``) or else taken as a string (``token``); other text is refused in the one form of a refused
    option value, ``must be KEY=VALUE ..., got 'x'`` (was: ``expected KEY=VALUE ...: 'x'``)."""
    key, sep, raw = text.partition("=")
    if not sep or key not in LISTENER_SETTINGS:
        raise argparse.ArgumentTypeError(
            f"must be KEY=VALUE with KEY one of {', '.join(LISTENER_SETTINGS)}, got {quoted(text)}"
        )
    try:
        return key, json.loads(raw)
    except ValueError:
        return key, raw


def main(argv: Sequence[str] | None = None) -> None:
    parser = SuggestingParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--elmo",
        required=True,
        help="ELMo model, any name spacy-elmo.ElmoLoader.v1 takes (hf_elmo.loading.resolve_model): a folder "
        "(converted, or the original options.json + *.hdf5), a zip of the original files, a Hub id owner/name, "
        "or a shipped name hf-elmo:NAME (e.g. hf-elmo:elmo-2x1024-en)",
    )
    parser.add_argument(
        "--tasks", nargs="+", choices=sorted(TASKS), default=["conll2003", "sst2", "sst5"], help="default: %(default)s"
    )
    parser.add_argument(
        "--max-train", type=positive_int, default=None, help="training sentences per task (default all)"
    )
    parser.add_argument(
        "--max-eval", type=positive_int, default=None, help="dev and test sentences per task (default all)"
    )
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument("--seed", type=integer_at_least(0, 2**32 - 1), default=0)
    parser.add_argument("--gpu-id", type=integer_at_least(-1), default=-1, help="-1: the CPU (default)")
    parser.add_argument(
        "--pipe-batch-size", type=positive_int, default=64, help="docs a batch of the timed nlp.pipe pass"
    )
    parser.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads")
    parser.add_argument("--output", type=Path, default=Path("bench-spacy"))
    parser.add_argument(
        "--pipelines", nargs="+", choices=PIPELINES, default=list(PIPELINES), help="which pipelines to train per task"
    )
    parser.add_argument(
        "--listener",
        type=listener_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a setting of the ELMo pipelines' mix listener ({', '.join(LISTENER_SETTINGS)}); repeatable",
    )
    parser.add_argument(
        "--plot-layer-weights",
        type=file_path("PNG file", "layers.png"),
        metavar="PNG",
        help="draw the ELMo layer weights here",
    )
    args = parser.parse_args(argv)
    if args.plot_layer_weights:  # before anything trains: it is written last
        try:
            check_figure_output(args.plot_layer_weights)
        except (OSError, ValueError) as err:
            parser.error(f"--plot-layer-weights: {error_text(err)}")
    # before anything trains: results.json is written last (a folder or link there, a file as --output)
    check_output_option(parser, "--output", args.output / RESULTS)
    if "elmo" in args.pipelines:  # before the output folder is made and any pipeline trains (the baselines first)
        try:
            find_model(args.elmo)
        except (OSError, ValueError) as err:  # the loader's one-line errors
            parser.error(f"--elmo: {error_text(err)}")
    torch.set_num_threads(args.threads)
    if args.gpu_id >= 0:
        spacy.require_gpu(args.gpu_id)  # what `spacy train --gpu-id` does before initialising
    host = machine()  # its load before the runs, not from them
    results = []
    # the tasks' capped splits: in a scratch folder of the run's, removed however it ends, never in --output, where
    # files of those names (a link there) may be the user's, and where a failed run leaves no folder it made
    with folder_for_the_run(args.output), scratch_folder(".bench-spacy-") as corpora:
        for task in args.tasks:
            paths = convert(task, corpora, args.max_train, args.max_eval)
            for with_elmo in (pipeline == "elmo" for pipeline in args.pipelines):
                results.append(run(task, with_elmo, paths, args))
                print(strict_json(results[-1]), flush=True)  # a diverged training's NaN layer weights: null
        write_text_atomic(args.output / RESULTS, strict_json(results, indent=1))
    if args.plot_layer_weights:
        plot_layer_weights(results, args.plot_layer_weights, args.seed)
    print(
        f"\nELMo: {args.elmo}; train <= {args.max_train or 'all'} sentences, dev/test <= "
        f"{args.max_eval or 'all'}, {args.epochs} epochs, seed {args.seed}, torch threads {args.threads}, "
        f"{f'GPU {args.gpu_id}, host ' if args.gpu_id >= 0 else ''}{host}; nlp.pipe over the test split at batch size "
        f"{args.pipe_batch_size}"
        + "".join(f"; listener {key}={json.dumps(value)}" for key, value in args.listener)
        + "\n"
    )
    print(table(results))
    if lines := gains(results):
        print("\n" + "\n".join(lines))


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
