"""`elmo pretrain` run control: --max-minutes, clip-free training on the fused path, and model
folders that name no absolute path of the machine that trained them."""

from __future__ import annotations

import json
import re

import pytest
import torch

from hf_elmo.cli import main as elmo_main
from hf_elmo.configuration_elmo import ElmoConfig
from hf_elmo.modeling_elmo import ElmoModel
from hf_elmo.training.checkpoints import CHECKPOINT_FILE
from hf_elmo.training.evaluation import load_lm
from hf_elmo.training.model import resolve_bilm_implementation
from hf_elmo.training.settings import NO_CLIP
from hf_elmo.training.trainer import pretrain
from tests.conftest import REPO
from tests.hf_elmo.training.test_pretraining import TINY, TINY_LSTM, TINY_SHAPE_ARGS, settings_for, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")

ABSOLUTE_PATH = re.compile(r"(^|[\s\"'=(])(/[^\s/\"']+){2,}")  # two or more /components from the root


def _absolute_paths(text: str) -> list:
    return [m.group(0).strip() for m in ABSOLUTE_PATH.finditer(text)]


def test_max_minutes_ends_the_run_at_a_step_boundary_with_a_saved_model(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    settings = settings_for(tmp_path, corpus, max_tokens=10_000, max_minutes=1e-9, checkpoint_every_steps=0)
    out = pretrain(settings, show_progress=False)
    training = json.loads((out / "training.json").read_text())
    assert training["position"]["step"] == 1 and training["position"]["tokens_seen"] < 10_000
    checkpoint = torch.load(settings.resolved_checkpoint_dir() / CHECKPOINT_FILE, weights_only=True)
    assert checkpoint["step"] == 1
    saved = load_lm(out).state_dict()
    for name, value in checkpoint["model"].items():
        torch.testing.assert_close(saved[name], value, rtol=0, atol=0, msg=name)
    log = (settings.resolved_checkpoint_dir() / "losses.tsv").read_text().splitlines()
    assert log[0].split("\t") == ["step", "epoch", "tokens_seen", "train_loss", "seconds"] and len(log) == 2


def test_auto_trains_clip_free_models_on_the_fused_path_on_cuda_only():
    clip_free, clipping = ElmoConfig(**TINY, **NO_CLIP), ElmoConfig(**TINY)
    assert resolve_bilm_implementation("auto", clip_free, torch.device("cuda")) == "fused"
    assert resolve_bilm_implementation("auto", clip_free, torch.device("cpu")) == "fast"
    assert resolve_bilm_implementation("auto", clipping, torch.device("cuda")) == "fast"
    assert resolve_bilm_implementation("plain", clipping, torch.device("cuda")) == "plain"
    with pytest.raises(ValueError, match="train with --no-clip"):
        resolve_bilm_implementation("fused", clipping, torch.device("cpu"))


def test_auto_trains_a_clip_free_model_whose_projection_is_as_wide_as_its_cell_on_the_fast_path():
    wide = ElmoConfig(**{**TINY, **NO_CLIP, "projection_dim": TINY["lstm_dim"]})
    assert resolve_bilm_implementation("auto", wide, torch.device("cuda")) == "fast"
    with pytest.raises(ValueError, match=r"needs projection_dim below lstm_dim .*: use 'fast' for this model$"):
        resolve_bilm_implementation("fused", wide, torch.device("cpu"))


def test_no_clip_fused_training_saves_a_clip_free_model_that_runs_on_every_path(tmp_path, monkeypatch):
    import hf_elmo.training.trainer as trainer

    used = []
    real_step = trainer.train_step

    def recording_step(model, *args, **kwargs):
        used.append(model.config.bilm_implementation)
        return real_step(model, *args, **kwargs)

    monkeypatch.setattr(trainer, "train_step", recording_step)
    corpus = write_corpus(tmp_path / "c.txt", n=40)
    out = tmp_path / "model"
    assert (
        elmo_main(
            [
                "pretrain",
                str(corpus),
                str(out),
                "--max-tokens",
                "200",
                *TINY_SHAPE_ARGS,
                "--vocab-size",
                "100",
                "--min-count",
                "1",
                "--num-sampled",
                "16",
                "--tokens-per-batch",
                "64",
                "--no-clip",
                "--bilm-implementation",
                "fused",
                "--no-progress",
            ]
        )
        == 0
    )
    assert used and set(used) == {"fused"}
    config = json.loads((out / "config.json").read_text())
    assert config["cell_clip"] is None and config["proj_clip"] is None and config["bilm_implementation"] == "fast"
    model = ElmoModel.from_pretrained(out).eval()
    ids = torch.randint(1, 200, (2, 5, 50))
    outputs = {}
    with torch.inference_mode():
        for path in ("fast", "plain", "fused"):
            model.config.bilm_implementation = path
            outputs[path] = model(input_ids=ids).hidden_states
    for path in ("plain", "fused"):
        for a, b in zip(outputs["fast"], outputs[path]):
            torch.testing.assert_close(b, a, atol=1e-5, rtol=0, msg=path)


def test_fused_training_of_a_clipping_model_is_a_one_line_error(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=20)
    code = elmo_main(
        [
            "pretrain",
            str(corpus),
            str(tmp_path / "m"),
            "--max-tokens",
            "50",
            "--bilm-implementation",
            "fused",
            "--no-progress",
        ]
    )
    assert code == 2
    assert "train with --no-clip" in capsys.readouterr().err


@pytest.mark.parametrize("inside_cwd", [True, False], ids=["inside-cwd", "outside-cwd"])
def test_model_folder_names_no_absolute_path(tmp_path, monkeypatch, inside_cwd):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work if inside_cwd else REPO)
    (work / "data").mkdir()
    corpus = write_corpus(work / "data" / "c.txt", n=40)
    valid = write_corpus(work / "data" / "v.txt", n=5, seed=3)
    settings = settings_for(work, corpus, valid_file=str(valid), max_tokens=100)  # absolute paths in settings
    out = pretrain(settings, show_progress=False)
    for name in ("training.json", "README.md", "config.json"):
        text = (out / name).read_text()
        assert str(tmp_path) not in text and not _absolute_paths(text), name
    recorded = json.loads((out / "training.json").read_text())["settings"]
    if inside_cwd:
        assert (recorded["train_file"], recorded["output_dir"]) == ("data/c.txt", "model")
    else:
        assert (recorded["train_file"], recorded["valid_file"], recorded["output_dir"]) == ("c.txt", "v.txt", "model")


def test_shipped_pretrained_folders_name_no_absolute_path():
    folders = [p for p in (REPO / "hf_elmo" / "pretrained").iterdir() if (p / "training.json").is_file()]
    assert folders
    for folder in folders:
        for name in ("training.json", "README.md"):
            assert not _absolute_paths((folder / name).read_text()), f"{folder.name}/{name}"


def test_collating_in_worker_processes_gives_the_weights_of_collating_in_the_loop(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    weights = []
    for workers in (0, 2):
        settings = settings_for(tmp_path / f"w{workers}", corpus, max_tokens=400, data_workers=workers)
        weights.append(load_lm(pretrain(settings, show_progress=False)).state_dict())
    for name, value in weights[0].items():
        torch.testing.assert_close(weights[1][name], value, rtol=0, atol=0, msg=name)


def test_data_workers_default_to_none_on_cpu_and_some_on_cuda():
    from hf_elmo.training.data import data_workers_for

    assert data_workers_for(None, torch.device("cpu")) == 0
    assert 1 <= data_workers_for(None, torch.device("cuda")) <= 4
    assert data_workers_for(3, torch.device("cpu")) == 3


def test_a_snapshot_at_n_tokens_equals_a_run_of_n_tokens_and_the_word_baseline_sees_its_batches(tmp_path):
    from hf_elmo.training.checkpoints import snapshot_folder

    corpus = write_corpus(tmp_path / "c.txt", n=60)
    long = settings_for(tmp_path / "long", corpus, max_tokens=600, snapshot_tokens=300)
    pretrain(long, show_progress=False)
    short = pretrain(settings_for(tmp_path / "short", corpus, max_tokens=300), show_progress=False)
    snapshot = snapshot_folder(long.resolved_checkpoint_dir(), 300)
    expected, got = load_lm(short).state_dict(), load_lm(snapshot).state_dict()
    for name, value in expected.items():
        torch.testing.assert_close(got[name], value, rtol=0, atol=0, msg=name)
    position = json.loads((snapshot / "training.json").read_text())["position"]
    assert position == {**json.loads((short / "training.json").read_text())["position"], "elapsed": position["elapsed"]}
    assert 300 <= position["tokens_seen"] < 600
    assert load_lm(snapshot).config.dropout == 0.0 and load_lm(snapshot).config.bilm_implementation == "fast"

    word = settings_for(tmp_path / "word", corpus, max_tokens=300, token_embedding="word", config_overrides=TINY_LSTM)
    pretrain(word, show_progress=False)

    def tokens_by_step(settings):
        lines = (settings.resolved_checkpoint_dir() / "losses.tsv").read_text().splitlines()[1:]
        return [line.split("\t")[:3] for line in lines]

    assert tokens_by_step(word) == tokens_by_step(long)[: len(tokens_by_step(word))]
    assert tokens_by_step(word)[-1][2] == str(position["tokens_seen"])


def test_snapshot_tokens_must_be_a_positive_integer(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=10)
    with pytest.raises(ValueError, match="--snapshot-tokens must be an integer >= 1, got 0"):
        pretrain(settings_for(tmp_path, corpus, snapshot_tokens=0), show_progress=False)
    assert not (tmp_path / "model").exists()


def test_a_snapshot_the_run_would_never_write_is_refused_before_anything_is_written(tmp_path):
    """Was: no snapshot folder and no word of it, for --snapshot-tokens beyond the run's budget, or given
    to a resumed run that has seen that many tokens already."""
    from tests.hf_elmo.training.test_pretrain_safety import files_under

    corpus = write_corpus(tmp_path / "c.txt", n=60)
    folder = tmp_path / "model.checkpoint"
    with pytest.raises(ValueError) as refused:
        pretrain(settings_for(tmp_path, corpus, snapshot_tokens=601), show_progress=False)
    assert str(refused.value) == (
        "--snapshot-tokens 601 is beyond the run's budget of 600 tokens (--max-tokens 600), so it would never be "
        "written; give at most 600"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]
    with pytest.raises(ValueError, match=r"budget of 384 tokens \(--epochs 1 of .*c\.txt\)"):
        pretrain(settings_for(tmp_path, corpus, max_tokens=None, epochs=1, snapshot_tokens=385), show_progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]

    assert pretrain(settings_for(tmp_path, corpus, max_steps=4), show_progress=False) is None
    seen = torch.load(folder / CHECKPOINT_FILE, weights_only=True)["tokens_seen"]
    before = files_under(folder)
    with pytest.raises(ValueError) as refused:
        pretrain(settings_for(tmp_path, corpus, snapshot_tokens=seen), show_progress=False)
    assert str(refused.value) == (
        f"--snapshot-tokens {seen} is passed already: the run in {folder} has seen {seen} tokens, and its snapshot "
        f"{folder / f'tokens-{seen}'} was not written then; drop --snapshot-tokens, or give more than {seen}"
    )
    assert files_under(folder) == before and not (tmp_path / "model").exists()
    assert pretrain(settings_for(tmp_path, corpus, snapshot_tokens=seen + 1), show_progress=False) is not None
    assert (folder / f"tokens-{seen + 1}" / "config.json").is_file()
    assert pretrain(settings_for(tmp_path, corpus, snapshot_tokens=seen + 1), show_progress=False, overwrite=True)
