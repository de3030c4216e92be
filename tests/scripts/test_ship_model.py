"""scripts/ship_model.py: a pretraining run becomes a shipped folder (fp16) with its model card."""

import json
import subprocess
import sys

import pytest
import torch
from huggingface_hub.repocard import metadata_load

from hf_elmo.cli import main as elmo_main
from hf_elmo.fileio import strict_json
from hf_elmo.modeling_elmo import ElmoModel
from hf_elmo.training.evaluation import load_lm
from tests.conftest import REPO
from tests.hf_elmo.training.test_pretraining import TINY_SHAPE_ARGS, write_corpus

SHIP = REPO / "scripts" / "ship_model.py"


def figures(ours: float, baseline: float) -> dict:
    def row(average: float) -> dict:
        return {"forward": average + 1, "backward": average - 1, "average": average, "predictions": 40, "unk_rate": 0.1}

    return {
        "ours": {"held-out test": row(ours)},
        "baseline": {"held-out test": row(baseline)},
        "downstream": {"CoNLL-2003 test F1": {"elmo": [80.76, 81.68], "baseline": [79.21, 79.69]}},
        "commands": ["elmo perplexity MODEL test.txt --json"],
        "machine": "2-core test VM",
        "hardware": "1 CPU thread",
    }


def pretrain(corpus, run, *extra: str) -> None:
    """A tiny run from scratch, or continuing the --init-model LM in ``extra`` (with its vocabulary)."""
    args = ["pretrain", str(corpus), str(run), "--epochs", "1", *TINY_SHAPE_ARGS, "--tokens-per-batch", "128"]
    vocabulary = [] if "--init-model" in extra else ["--vocab-size", "100", "--min-count", "1"]
    assert elmo_main([*args, *vocabulary, "--no-progress", *extra]) == 0


def ship(tmp_path, ours: float, baseline: float, earlier: tuple = (), baseline_is: str | None = None) -> tuple:
    """Pretrain a tiny run (continuing the runs ``earlier``, if any), then ship it as
    tmp_path/shipped/elmo-test-en with those figures."""
    run = tmp_path / "run"
    corpus = write_corpus(tmp_path / "c.txt", n=40)
    pretrain(corpus, run, *(["--init-model", str(earlier[-1]), "--seed", "1"] if earlier else []))
    numbers = {**figures(ours, baseline), **({"baseline_is": baseline_is} if baseline_is else {})}
    (tmp_path / "figures.json").write_text(json.dumps(numbers))
    out = tmp_path / "shipped" / "elmo-test-en"
    out.parent.mkdir()
    cmd = [sys.executable, str(SHIP), str(run), str(out), "--figures", str(tmp_path / "figures.json")]
    cmd += [arg for folder in earlier for arg in ("--earlier", str(folder))]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return run, out


def test_ship_model_names_the_folder_and_writes_card_and_figures(tmp_path):
    run, out = ship(tmp_path, ours=90.0, baseline=120.0)
    card = (out / "README.md").read_text()
    assert "# elmo-test-en: a small English ELMo" in card and "`hf-elmo:elmo-test-en`" in card
    assert "lower perplexity on every evaluation set" in card and "baseline has the lower" not in card
    assert "the baseline is the same biLM with a word embedding instead of the char CNN" in card
    assert "91.0 / 89.0 / 90.0" in card and "2-core test VM" in card and "CC BY-SA 3.0" in card
    assert metadata_load(out / "README.md")["language"] == "en"
    assert "| spaCy CoNLL-2003 test F1: ELMo vs baseline | 80.8 / 81.7 vs 79.2 / 79.7 (mean +1.8) |" in card
    assert str(tmp_path) not in card and str(tmp_path) not in (out / "training.json").read_text()
    assert json.loads((out / "training.json").read_text())["figures"]["baseline"]["held-out test"]["average"] == 120
    assert [p.name for p in out.parent.iterdir()] == ["elmo-test-en"]  # no staging folder left
    trained, shipped = load_lm(run), load_lm(out)
    assert shipped.dtype == torch.float32  # stored fp16, loaded as float32 on CPU
    assert ElmoModel.from_pretrained(out).config.dropout == 0.0
    for name, value in shipped.state_dict().items():
        torch.testing.assert_close(value, trained.state_dict()[name].half().float(), rtol=0, atol=0, msg=name)


def test_ship_model_says_when_the_baseline_wins(tmp_path):
    _, out = ship(tmp_path, ours=150.0, baseline=120.0)
    assert "the word-embedding baseline has the lower perplexity" in (out / "README.md").read_text()


@pytest.mark.slow  # ~12 s: ship_model.py run as a command
def test_ship_model_compares_at_a_smaller_budget_beside_the_whole_one(tmp_path):
    run = tmp_path / "run"
    pretrain(write_corpus(tmp_path / "c.txt", n=40), run)
    smaller = {"tokens": 20_000, "ours": figures(130.0, 0)["ours"], "baseline": figures(0, 120.0)["baseline"]}
    for whole, said in [(figures(90.0, 95.0), "At the same budget the char CNN has the lower perplexity"), ({}, "")]:
        numbers = {**figures(90.0, 0), **whole, "smaller_budget": smaller}
        if not whole:
            del numbers["baseline"]  # a baseline of the smaller budget alone
        (tmp_path / "figures.json").write_text(json.dumps(numbers))
        out = tmp_path / "elmo-test-en"
        command = [sys.executable, str(SHIP), str(run), str(out), "--figures", str(tmp_path / "figures.json")]
        command += ["--overwrite"] if out.exists() else []
        assert subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO).returncode == 0
        card = (out / "README.md").read_text()
        at_smaller = (
            "At 20,000 tokens (this model's snapshot there against a baseline of those tokens) the word-embedding "
            "baseline has the lower perplexity on every evaluation set."
        )
        assert at_smaller in card and said in card and "not trained alike" not in card
        assert "| this model at 20,000 tokens, held-out test | 131.0 / 129.0 / 130.0 |" in card
        assert "| baseline (word embeddings) at 20,000 tokens, held-out test | 121.0 / 119.0 / 120.0 |" in card
        assert ("| baseline (word embeddings) held-out test | 96.0 / 94.0 / 95.0 |" in card) == bool(whole)


def test_a_continued_run_is_shipped_with_the_steps_tokens_and_time_of_every_stage(tmp_path):
    first = tmp_path / "first"
    pretrain(write_corpus(tmp_path / "first.txt", n=30), first, "--warmup-steps", "2")
    record = json.loads((first / "training.json").read_text())  # as a torchrun --nproc_per_node 2 run records it
    (first / "training.json").write_text(json.dumps({**record, "metrics": {**record["metrics"], "world_size": 2}}))
    run, out = ship(
        tmp_path, ours=90.0, baseline=120.0, earlier=(first,), baseline_is="the word biLM of stage 1, at its budget"
    )
    stages = [json.loads((folder / "training.json").read_text())["position"] for folder in (first, run)]
    card = (out / "README.md").read_text()
    steps, tokens = [p["step"] for p in stages], [p["tokens_seen"] for p in stages]
    assert f"| steps | {sum(steps):,} ({steps[0]:,} + {steps[1]:,}) |" in card
    assert f"| tokens seen | {sum(tokens):,} ({tokens[0]:,} + {tokens[1]:,}) |" in card
    assert "| stages | 1: from scratch, adagrad lr 0.2 (constant, 2 warm-up steps), seed 0" in card
    assert f"seed 0, {tokens[0] / 1e6:.1f}M tokens, 2 DDP processes; 2:" in card
    assert "the baseline is the word biLM of stage 1, at its budget." in card
    assert "not trained alike, so their perplexities do not rank the two" in card and "lower perplexity" not in card
    assert "2: continued, adagrad lr 0.2 (constant), seed 1" in card and card.count("DDP processes") == 1
    assert "2048 padded tokens a batch and process" not in card  # the tiny runs' batches are 128 tokens
    assert "128 padded tokens a batch and process" in card
    record = json.loads((out / "training.json").read_text())
    assert [stage["position"] for stage in record["earlier_stages"]] == stages[:1]
    assert record["position"] == stages[1]


@pytest.mark.slow  # ~11 s: ship_model.py run as a command
def test_ship_model_refuses_figures_that_are_not_finite_naming_the_figure_and_the_file(tmp_path):
    run = tmp_path / "run"
    pretrain(write_corpus(tmp_path / "c.txt", n=40), run)
    diverged = figures(90.0, 120.0)
    diverged["ours"]["held-out test"]["forward"] = float("inf")  # as elmo perplexity --json writes it: null
    baseline_nan = figures(90.0, 120.0)
    baseline_nan["baseline"]["held-out test"]["average"] = float("nan")
    for numbers, where in [
        (diverged, '["ours"]["held-out test"]["forward"] is null'),
        (baseline_nan, '["baseline"]["held-out test"]["average"] is null'),
    ]:
        (tmp_path / "figures.json").write_text(strict_json(numbers))
        out = tmp_path / "elmo-test-en"
        command = [sys.executable, str(SHIP), str(run), str(out), "--figures", str(tmp_path / "figures.json")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert f"ship_model.py: error: {tmp_path / 'figures.json'}: {where}, not a finite number" in done.stderr
        assert "leave that entry out of figures.json" in done.stderr
        assert not out.exists()


@pytest.mark.slow  # ~17 s: ship_model.py run four times
def test_ship_model_refuses_to_write_over_its_run_or_a_folder_it_did_not_make(tmp_path):
    run, out = ship(tmp_path, ours=90.0, baseline=120.0)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    figures_file = str(tmp_path / "figures.json")

    def ship_to(target, *extra):
        command = [sys.executable, str(SHIP), str(run), str(target), "--figures", figures_file, *extra]
        return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)

    done = ship_to(run, "--overwrite")
    assert done.returncode == 1 and f"the output folder {run} is the input;" in done.stderr
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    done = ship_to(out)
    assert done.returncode == 1 and "exists and is not empty" in done.stderr and "--overwrite" in done.stderr
    assert ship_to(out, "--overwrite").returncode == 0
    assert sorted(p.name for p in out.parent.iterdir()) == ["elmo-test-en"]
