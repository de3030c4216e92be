"""scripts/bench_spacy.py end to end on a few sentences (slow: it trains pipelines), from ../shared
and from a folder written by scripts/gpu/pack_spacy_data.py (what travels to the GPU host)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, load_script, strict_json_loads
from tests.spacy_elmo.pipeline_helpers import tiny_elmo

SCRIPT = REPO / "scripts" / "bench_spacy.py"
#: The mix listener's settings in spacy_elmo/configs/{ner,textcat}.cfg.
SHIPPED_LISTENER = {"layer_norm": "token", "dropout": 0.2, "l2": 0.001}
PACK = REPO / "scripts" / "gpu" / "pack_spacy_data.py"


@pytest.fixture(scope="module")
def tiny_elmo_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny-elmo")
    tiny_elmo().save_pretrained(folder)
    return folder


def bench(elmo: Path, output: Path, tasks: list[str], caps: list[str], env: dict[str, str] | None = None):
    command = [sys.executable, str(SCRIPT), "--elmo", str(elmo), "--tasks", *tasks, *caps, "--output", str(output)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr
    return run, json.loads((output / "results.json").read_text())


@pytest.mark.slow
def test_bench_trains_baseline_and_elmo_and_prints_the_table(shared, tiny_elmo_dir, tmp_path):
    png = tmp_path / "weights.png"
    caps = ["--max-train", "40", "--max-eval", "20", "--epochs", "2", "--pipe-batch-size", "8"]
    run, results = bench(tiny_elmo_dir, tmp_path, ["sst2", "conll2003"], [*caps, "--plot-layer-weights", str(png)])
    assert [(r["task"], r["pipeline"]) for r in results] == [
        ("sst2", "baseline"),
        ("sst2", "ELMo"),
        ("conll2003", "baseline"),
        ("conll2003", "ELMo"),
    ]
    assert all(len(r["epoch_seconds"]) == 2 and 0.0 <= r["test"] <= 100.0 for r in results)
    # nlp.pipe over the test split after training: a rate, its batch size; no GPU memory on CPU
    assert all(r["pipe_words_per_second"] > 0 and r["pipe_batch_size"] == 8 for r in results)
    assert all(r["peak_gpu_mib"] is None for r in results)
    # each ELMo pipeline's learned scalar mix: softmax(s) over the token layer and the LSTM layers, and gamma
    assert ["layer_weights" in r for r in results] == [False, True, False, True]
    # the shipped configs' listener settings, as the pipelines were built
    assert [r.get("listener") for r in results][1::2] == [SHIPPED_LISTENER, SHIPPED_LISTENER]
    for mixes in (r["layer_weights"] for r in results if r["pipeline"] == "ELMo"):
        assert len(mixes) == 1 and len(mixes[0]["weights"]) == 3 and mixes[0]["gamma"] > 0
        assert sum(mixes[0]["weights"]) == pytest.approx(1.0, abs=1e-5)
    assert png.read_bytes().startswith(b"\x89PNG")
    header = next(line for line in run.stdout.splitlines() if line.startswith("| task |"))
    assert header.endswith("| peak GPU MiB | nlp.pipe words/s |")
    row = next(line for line in run.stdout.splitlines() if line.startswith("| sst2 | ELMo |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(cells) == 8 and cells[6] == "-" and float(cells[7].replace(",", "")) > 0
    assert re.search(
        r", torch threads 1, CPU .+ \(\d+ cores, load [\d.]+\); nlp.pipe over the test split at batch size 8$",
        run.stdout,
        re.M,
    )
    assert re.search(r"^sst2: ELMo minus baseline dev [+-]\d+\.\d, test [+-]\d+\.\d; ", run.stdout, re.M), run.stdout


@pytest.mark.slow
def test_bench_trains_only_the_elmo_pipelines_with_the_listener_settings_given(shared, tiny_elmo_dir, tmp_path):
    caps = ["--max-train", "10", "--max-eval", "5", "--epochs", "1", "--pipelines", "elmo"]
    settings = ["--listener", "dropout=0.0", "--listener", "layer_norm=token", "--listener", "l2=0"]
    run, results = bench(tiny_elmo_dir, tmp_path, ["sst2", "conll2003"], [*caps, *settings])
    assert [(r["task"], r["pipeline"]) for r in results] == [("sst2", "ELMo"), ("conll2003", "ELMo")]
    assert all(r["listener"] == {"layer_norm": "token", "dropout": 0.0, "l2": 0} for r in results)
    assert 'listener dropout=0.0; listener layer_norm="token"; listener l2=0' in run.stdout


def test_a_listener_setting_that_does_not_exist_is_refused_with_one_line(tmp_path):
    command = [sys.executable, str(SCRIPT), "--elmo", "x", "--listener", "width=3", "--output", str(tmp_path)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "KEY one of layer_norm, dropout, l2, got 'width=3'" in run.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name, message",
    [
        ("no-such-elmo/", "--elmo: no model 'no-such-elmo/': no such local file or folder"),
        ("{pipeline}", "--elmo: {pipeline} is a spaCy pipeline, not an ELMo model folder: it holds no elmo component"),
    ],
    ids=["missing", "spacy-pipeline"],
)
def test_a_bad_elmo_name_is_refused_in_one_line_before_any_pipeline_trains(name, message, tmp_path):
    """Checked through the pipelines' loader (spacy_elmo.loader.find_model), with its messages. Was:
    refused only when the first ELMo pipeline was initialised, after that task's baseline trained."""
    import spacy

    spacy.blank("en").to_disk(tmp_path / "pipeline")
    output = tmp_path / "bench"
    name, message = (text.format(pipeline=tmp_path / "pipeline") for text in (name, message))
    caps = ["--tasks", "sst2", "--max-train", "5", "--max-eval", "5", "--epochs", "1", "--output", str(output)]
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--elmo", name, *caps], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 2 and f"bench_spacy.py: error: {message}" in run.stderr.splitlines()[-1], run.stderr
    assert not output.exists()


def test_the_elmo_options_help_names_every_kind_of_model_name_the_loader_takes():
    """--elmo goes to spacy-elmo.ElmoLoader.v1 (hf_elmo.loading.resolve_model), and the script's own
    example gives a shipped name. Was: 'ELMo model folder or Hub id (converted or original format)'."""
    run = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    option = " ".join(run.stdout.split("\n  --elmo ELMO", 1)[1].split("\n  --tasks", 1)[0].split())
    for kind in ("a folder", "original options.json + *.hdf5", "a zip of the original files", "owner/name"):
        assert kind in option, option
    assert "shipped name hf-elmo:NAME (e.g. hf-elmo:elmo-2x1024-en)" in option


@pytest.mark.slow
def test_bench_runs_from_a_packed_shared_folder(shared, tiny_elmo_dir, tmp_path):
    packed = tmp_path / "gpu-spacy"
    env = {**os.environ, "ELMO_SHARED": str(shared)}
    subprocess.run([sys.executable, str(PACK), "--out", str(packed), "--tasks", "sst2", "--with"], check=True, env=env)
    env["ELMO_SHARED"] = str(packed)
    caps = ["--max-train", "10", "--max-eval", "5", "--epochs", "1"]
    _, results = bench(tiny_elmo_dir, tmp_path / "bench", ["sst2"], caps, env)
    assert [r["pipeline"] for r in results] == ["baseline", "ELMo"]
    assert all(r["pipe_words_per_second"] > 0 for r in results)


@pytest.mark.slow
def test_bench_sst2_phrases_trains_on_the_trees_phrases_and_scores_the_cased_sentences(shared, tiny_elmo_dir, tmp_path):
    import spacy
    from spacy.tokens import DocBin

    from spacy_elmo.corpora import read_sst2_phrases

    caps = ["--max-train", "3", "--max-eval", "10", "--epochs", "1", "--pipelines", "baseline"]
    _, results = bench(tiny_elmo_dir, tmp_path, ["sst2-phrases"], caps)
    assert [(r["task"], r["pipeline"]) for r in results] == [("sst2-phrases", "baseline")]
    vocab = spacy.blank("en").vocab
    train = list(DocBin().from_disk(tmp_path / "sst2-phrases.train.spacy").get_docs(vocab))
    phrases = list(read_sst2_phrases(shared / "data" / "sst" / "trees" / "train.txt", vocab, 3))
    assert len(phrases) > 3 and [d.text for d in train] == [d.text for d in phrases]
    dev = list(DocBin().from_disk(tmp_path / "sst2-phrases.dev.spacy").get_docs(vocab))
    assert len(dev) == 10 and sum(any(c.isupper() for c in d.text) for d in dev) >= 5  # sentences, as cased


def test_the_rows_of_a_diverged_training_are_strict_json_with_null_layer_weights(tmp_path, monkeypatch, capsys):
    """Was: "gamma": NaN in results.json and the printed rows (plain json.dumps), which jq and strict
    JSON parsers refuse: a spaCy training that diverged learns NaN scalar-mix weights."""
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_spacy.py")
    nan = float("nan")
    row = {"task": "sst2", "pipeline": "ELMo", "epoch_seconds": [1.0], "epoch_cpu_seconds": [1.0], "dev": 50.0}
    row |= {"test": 50.0, "pipe_words_per_second": 9.0, "peak_gpu_mib": None}
    row["layer_weights"] = [{"component": "textcat", "weights": [nan, nan, nan], "gamma": nan}]
    monkeypatch.setattr(module, "convert", lambda *args: {})
    monkeypatch.setattr(module, "run", lambda *args: row)  # what a diverged training of an ELMo pipeline gives
    monkeypatch.setattr(module.torch, "set_num_threads", lambda n: None)  # --threads: not this process's others
    argv = ["bench_spacy.py", "--elmo", "unused", "--tasks", "sst2", "--pipelines", "baseline"]
    monkeypatch.setattr(sys, "argv", [*argv, "--output", str(tmp_path / "out")])
    module.main()
    printed = strict_json_loads(capsys.readouterr().out.splitlines()[0])
    written = strict_json_loads((tmp_path / "out" / "results.json").read_text())
    assert written == [printed] and printed["layer_weights"] == [
        {"component": "textcat", "weights": [None, None, None], "gamma": None}
    ]
