"""Copy a model trained with `elmo pretrain` into the package (fp16 safetensors) with its model card.

    python scripts/ship_model.py RUN_DIR hf_elmo/pretrained/elmo-2x1024-en --figures figures.json

The folder's name is the shipped name (``hf-elmo:NAME``, listed in ``hf_elmo.pretrained.SHIPPED``).

``figures.json`` holds the perplexities measured with `elmo perplexity --json` (ours and the
baseline's; ``baseline_is`` says what the baseline is when it was not trained on the same
tokens; ``smaller_budget``, ``{"tokens": N, "ours": ..., "baseline": ...}``, this run's own
snapshot after N tokens against a baseline trained on those N alone: an equal-budget comparison
short of the whole run, beside the baseline of the whole run or in its place), optionally downstream scores
per seed (``"downstream": {TASK: {"elmo": [...], "baseline": [...]}}``, from
scripts/bench_spacy.py), and the commands that printed them; they go into the card beside the
training record (``training.json``: data, steps, tokens seen, time). Every figure must be a
finite number: a ``null`` (strict JSON's infinite or NaN perplexity, a diverged model's) is refused,
naming it.

A run continued from an earlier one (``elmo pretrain --init-model EARLIER_RUN``) names the earlier
run folders with ``--earlier`` (first stage first): the card counts the steps, tokens and time of
all stages and lists each stage, and ``training.json`` keeps their records (``earlier_stages``).

    python scripts/ship_model.py RUN_DIR hf_elmo/pretrained/elmo-2x1024-en --figures figures.json --earlier FIRST_RUN
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import torch

from hf_elmo.configuration_elmo import read_json_file
from hf_elmo.model_card import write_model_card
from hf_elmo.output_folders import TRAINING_FILE, build_aside, check_output_folder
from hf_elmo.pretrained import SHIPPED_PREFIX
from hf_elmo.tokenization_elmo import ElmoTokenizer
from hf_elmo.training.evaluation import load_lm
from hf_elmo.training.settings import PretrainSettings
from hf_elmo.training.vocab import VOCAB_FILE, Vocabulary
from hf_elmo_cli.commands._args import SuggestingParser, exit_with_error

ATTRIBUTION = (
    "Trained on text from English Wikipedia (2015 and 2018 articles; CC BY-SA 3.0) and English Wikinews "
    "(CC BY 2.5), by their contributors: https://en.wikipedia.org, https://en.wikinews.org. The weights "
    "are shared under CC BY-SA 3.0 with that attribution."
)


#: What the baseline of the card's figures is, unless figures.json says (``baseline_is``).
BASELINE_IS = (
    "the same biLM with a word embedding instead of the char CNN, trained the same way (same seed, order, "
    "batches and optimiser) on the same tokens"
)


def first_not_finite(figures: Any, where: str = "") -> str | None:
    """Where in ``figures`` (read from figures.json) the first figure that is not a finite number is,
    as subscripts (``["ours"]["held-out test"]["forward"]``) with what it is, or None when every
    figure is finite: ``null`` (``fileio.strict_json`` writes an infinite or NaN figure so, as
    ``elmo perplexity --json`` does a diverged model's perplexity), or an ``Infinity`` or ``NaN`` of
    a file written otherwise. The card formats every figure as a number."""
    if figures is None or (isinstance(figures, float) and not math.isfinite(figures)):
        return f"{where} is {'null' if figures is None else figures}"
    items = figures.items() if isinstance(figures, dict) else enumerate(figures) if isinstance(figures, list) else ()
    for key, value in items:
        found = first_not_finite(value, f"{where}[{json.dumps(key)}]")
        if found is not None:
            return found
    return None


def fmt(figures: dict[str, float]) -> str:
    """A card row's ``forward / backward / average`` perplexities (finite: ``first_not_finite``)."""
    return f"{figures['forward']:.1f} / {figures['backward']:.1f} / {figures['average']:.1f}"


def downstream(scores: dict[str, list[float]]) -> str:
    """``ELMo seeds vs baseline seeds (mean +d)`` of one task's scores (``{"elmo": [...], "baseline": [...]}``)."""
    elmo, baseline = scores["elmo"], scores["baseline"]
    gain = sum(elmo) / len(elmo) - sum(baseline) / len(baseline)
    listed = " / ".join(f"{x:.1f}" for x in elmo), " / ".join(f"{x:.1f}" for x in baseline)
    return f"{listed[0]} vs {listed[1]} (mean {gain:+.1f})"


def stages_summary(stages: list[dict]) -> dict[str, str]:
    """Card rows for a model trained in ``stages`` (``settings``, ``position`` and ``world_size`` of
    each ``training.json`` record, first stage first):
    steps, tokens and time of all of them (with each stage's share when there are several) and one
    line a stage."""
    positions = [stage["position"] for stage in stages]

    def total(key: str, show) -> str:
        parts = [show(position[key]) for position in positions]
        whole = show(sum(position[key] for position in positions))
        return whole if len(parts) == 1 else f"{whole} ({' + '.join(parts)})"

    rows = {
        "steps": total("step", lambda n: f"{n:,}"),
        "tokens seen": total("tokens_seen", lambda n: f"{n:,}"),
    }
    if len(stages) > 1:
        settings = [PretrainSettings(**stage["settings"]) for stage in stages]  # older records: new fields' defaults
        rows["stages"] = "; ".join(
            f"{i}: {'from scratch' if i == 1 else 'continued'}, {s.optimizer} lr {s.resolved_lr():g} "
            f"({s.lr_schedule}{f', {s.warmup_steps} warm-up steps' if s.warmup_steps else ''}), seed {s.seed}, "
            f"{stage['position']['tokens_seen'] / 1e6:.1f}M tokens"
            + (f", {stage['world_size']} DDP processes" if stage["world_size"] > 1 else "")
            for i, (s, stage) in enumerate(zip(settings, stages), start=1)
        )
    return rows


def _lower(ours: dict, baseline: dict) -> str:
    """Which of ours and the baseline has the lower average perplexity, set by set (the sets both have; "" if
    they share no set): the end of one of the card's sentences."""
    shared = [name for name in ours if name in baseline]
    if not shared:
        return ""
    lower = [name for name in shared if ours[name]["average"] < baseline[name]["average"]]
    if len(lower) == len(shared):
        return "the char CNN has the lower perplexity on every evaluation set."
    if not lower:
        return "the word-embedding baseline has the lower perplexity on every evaluation set."
    return f"the char CNN has the lower perplexity on {', '.join(lower)}; the baseline on the others."


def comparisons(figures: dict[str, Any]) -> str:
    """The card's sentences on ours against the baseline: at the whole run's budget (none when
    the baseline was trained otherwise, ``baseline_is``, since that is no fair race), and at the
    smaller equal budget of ``smaller_budget``; one sentence for both where they say the same."""
    sentences = []
    races = []  # (at which budget, which has the lower perplexity there)
    if "baseline" in figures and "baseline_is" in figures:
        sentences.append(
            "This model and the baseline were not trained alike, so their perplexities do not rank the two."
        )
    elif "baseline" in figures:
        races.append(("At the same budget", _lower(figures["ours"], figures["baseline"])))
    if "smaller_budget" in figures:
        smaller = figures["smaller_budget"]
        at = f"At {smaller['tokens']:,} tokens (this model's snapshot there against a baseline of those tokens)"
        races.append((at, _lower(smaller["ours"], smaller["baseline"])))
    races = [(at, lower) for at, lower in races if lower]
    if len(races) == 2 and races[0][1] == races[1][1]:  # one sentence (was: the same words twice)
        (first, lower), (second, _) = races
        sentences.append(f"{first}, and {second[0].lower()}{second[1:]}, {lower}")
    else:
        sentences += [f"{at} {lower}" for at, lower in races]
    return " ".join(sentences)


def read_json(parser: argparse.ArgumentParser, path: Path, what: str) -> Any:
    """The JSON value in ``path`` (``what``: what it should be, said when it is missing), or the script's one-line
    error naming the file: missing, unreadable or not JSON (was: a traceback)."""
    try:
        return read_json_file(path)
    except FileNotFoundError:
        exit_with_error(parser, f"{path}: no such file ({what})")
    except OSError as err:
        exit_with_error(parser, err)
    except ValueError as err:
        exit_with_error(parser, f"{path}: not JSON ({err})")


#: What to give in place of a folder that is no pretraining run (``read_run_record``).
_GIVE_A_RUN = "give the folder of a pretraining run"


def read_run_record(parser: argparse.ArgumentParser, run_dir: Path) -> dict[str, Any]:
    """The ``training.json`` of the pretraining run ``run_dir`` (``read_json``), or the script's one-line error
    naming it where it is not such a record: an object with the run's ``settings`` and ``position`` objects."""
    path = run_dir / TRAINING_FILE
    record = read_json(parser, path, f"what elmo pretrain writes beside its model: {_GIVE_A_RUN}")
    if not isinstance(record, dict) or not all(isinstance(record.get(key), dict) for key in ("settings", "position")):
        exit_with_error(parser, f'{path}: no "settings" and "position" objects, as elmo pretrain writes: {_GIVE_A_RUN}')
    return record


def main() -> None:
    parser = SuggestingParser(
        prog=Path(__file__).name, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--figures", type=Path, required=True)
    parser.add_argument(
        "--earlier",
        type=Path,
        action="append",
        default=[],
        metavar="RUN_DIR",
        help="a run this one continued (its training.json), first stage first; repeatable",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace OUT_DIR (a model shipped before)")
    args = parser.parse_args()
    inputs = [args.run_dir, *args.earlier, args.figures]
    try:
        check_output_folder(args.out_dir, overwrite=args.overwrite, inputs=inputs, into_package=True)
    except (OSError, ValueError) as err:
        exit_with_error(parser, err)
    training = read_run_record(parser, args.run_dir)
    earlier = [read_run_record(parser, run) for run in args.earlier]
    # an earlier shipped folder brings its own earlier stages
    records = [s for run in earlier for s in [*run.get("earlier_stages", []), run]] + [training]
    stages = [
        {
            **{k: stage[k] for k in ("settings", "position")},
            "world_size": stage.get("world_size", stage.get("metrics", {}).get("world_size", 1)),
        }
        for stage in records
    ]
    figures = read_json(parser, args.figures, "the model's figures, of which the card is written")
    if not isinstance(figures, dict) or not isinstance(figures.get("ours"), dict):
        exit_with_error(parser, f'{args.figures}: no "ours" object (the model\'s perplexities, by the text scored)')
    not_finite = first_not_finite(figures)
    if not_finite is not None:
        exit_with_error(
            parser,
            f"{args.figures}: {not_finite}, not a finite number (a diverged model's perplexity is null): "
            f"the card shows finite figures only; ship a run whose figures are finite, or leave that entry out of "
            f"{args.figures.name}",
        )
    model_name = args.out_dir.name
    model = load_lm(args.run_dir)  # float32 (a run folder has dropout 0); stored as float16 below
    vocabulary = Vocabulary.from_file(args.run_dir / VOCAB_FILE)
    settings = PretrainSettings(**training["settings"])
    elapsed = sum(stage["position"]["elapsed"] for stage in stages)
    tokens_seen = sum(stage["position"]["tokens_seen"] for stage in stages)
    cfg = model.config
    hardware = figures.get("hardware", "1 CPU thread")
    rows = {
        "training data": settings.data_description,
        "licences": "Wikipedia: CC BY-SA 3.0; Wikinews: CC BY 2.5 (attribution above)",
        "tokenizer": "spaCy English tokenizer (`spacy.blank('en')`), spaCy sentencizer; one sentence a line",
        "held out": "whole blocks of 50 consecutive paragraphs: block 0 of every 200 -> valid, block 100 -> test "
        "(0.5% each, from all shards)",
        "architecture": f"char CNN {cfg.filters} ({cfg.n_filters} filters), {cfg.n_highway} highway, "
        f"{cfg.n_layers} x LSTM {cfg.lstm_dim} with projection {cfg.projection_dim}, "
        f"softmax over {cfg.vocab_size:,} words",
        "training": f"{settings.optimizer} lr {settings.resolved_lr():g}"
        + (f" ({settings.lr_schedule} schedule)" if settings.lr_schedule != "constant" else "")
        + f", clip {settings.clip_norm}, dropout {settings.dropout}, sampled softmax ({cfg.num_sampled} "
        f"log-uniform draws), {settings.tokens_per_batch} padded tokens a batch and process, {hardware}",
        **stages_summary(stages),
        "training time": f"{elapsed / 60:.0f} min ({figures.get('machine', 'CPU')})",
    }
    for name, values in figures["ours"].items():
        rows[f"perplexity {name} (fwd / bwd / avg)"] = fmt(values) + (
            f" ({values['predictions']:,} predictions a direction, {values['unk_rate']:.1%} <UNK>)"
        )
    for name, values in figures.get("baseline", {}).items():
        rows[f"baseline (word embeddings) {name}"] = fmt(values)
    if "smaller_budget" in figures:
        smaller = figures["smaller_budget"]
        for name, values in smaller["baseline"].items():
            rows[f"baseline (word embeddings) at {smaller['tokens']:,} tokens, {name}"] = fmt(values)
        for name, values in smaller["ours"].items():
            rows[f"this model at {smaller['tokens']:,} tokens, {name}"] = fmt(values)
    for name, scores in figures.get("downstream", {}).items():
        rows[f"spaCy {name}: ELMo vs baseline"] = downstream(scores)
    with build_aside(args.out_dir, overwrite=args.overwrite, inputs=inputs, into_package=True) as staging:
        model.config.pre_tokenizer = "spacy:en"  # the corpus was tokenised so (also kept by the tokenizer)
        model.save_pretrained(staging, storage_dtype=torch.float16)  # config.json keeps float32
        vocabulary.save(staging / VOCAB_FILE)
        ElmoTokenizer(pre_tokenizer=model.config.pre_tokenizer).save_pretrained(staging)
        record = {**training, "figures": figures, **({"earlier_stages": stages[:-1]} if earlier else {})}
        (staging / TRAINING_FILE).write_text(json.dumps(record, indent=2) + "\n")
        write_model_card(
            staging,
            title=f"{model_name}: a small English ELMo pretrained with hf_elmo",
            description=(
                f"The default model of the hf-elmo package (`elmo demo`), named `hf-elmo:{model_name}`. "
                f"An ELMo biLM trained from scratch with `elmo pretrain` ({hardware}, "
                f"{elapsed / 60:.0f} minutes, {tokens_seen / 1e6:.1f}M tokens): far less "
                "training than the released ELMo models had (10 epochs of the 1B Word Benchmark, about 8 billion "
                "tokens). Perplexities are full-softmax, over this model's own vocabulary, each sentence scored "
                "as `<S> tokens </S>` from zero state, the average being sqrt(fwd x bwd) (exp of the two "
                f"directions' mean loss, as bilm-tf reports it); the baseline is {figures.get('baseline_is', BASELINE_IS)}. "
                f"{comparisons(figures)} The char CNN "
                "gives every word, seen or not, a vector.\n\n"
                f"**Attribution.** {ATTRIBUTION}\n\nFigures and the commands that printed them: "
                "`training.json` (`figures`)."
            ),
            provenance=rows,
            license="cc-by-sa-3.0",
            language="en",  # pretrain-en: English Wikipedia and Wikinews
            path=f"hf_elmo/pretrained/{model_name}",  # the remote-code alternative, from a clone's root
            shipped_name=f"{SHIPPED_PREFIX}{model_name}",  # hf_elmo.pretrained.SHIPPED names it so
        )
    size = sum(p.stat().st_size for p in args.out_dir.iterdir())
    print(f"wrote {args.out_dir} ({size / 1e6:.1f} MB)")


if __name__ == "__main__":
    from hf_elmo_cli.commands._args import run_script

    run_script(main)
