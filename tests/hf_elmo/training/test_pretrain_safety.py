"""`elmo pretrain` checks every setting before writing anything, and names a damaged checkpoint
file with what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo.cli import main
from tests.hf_elmo.training.test_pretraining import TINY_SHAPE_ARGS, write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = [
    *TINY_SHAPE_ARGS,
    "--vocab-size",
    "100",
    "--min-count",
    "1",
    "--tokens-per-batch",
    "128",
    "--no-progress",
]


def pretrain(corpus: Path, out: Path, *extra: str) -> int:
    return main(["pretrain", str(corpus), str(out), *TINY, *extra])


def error_of(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "%|" not in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    "option, message",
    [
        (["--epochs", "1", "--dropout", "1.5"], "--dropout must be a finite number >= 0 and < 1, got 1.5"),
        (["--epochs", "1", "--dropout", "nan"], "--dropout must be a finite number"),
        (["--epochs", "1", "--filters", "[[0,5]]"], "--filters must be a JSON list of [width, n_channels] pairs"),
        (["--epochs", "1", "--filters", "[[1]]"], "--filters must be a JSON list of [width, n_channels] pairs"),
        (["--epochs", "1", "--lr", "nan"], "--lr must be a finite number > 0, got nan"),
        (["--epochs", "1", "--lr", "0"], "--lr must be a finite number > 0, got 0.0"),
        (["--epochs", "nan"], "--epochs must be a finite number > 0, got nan"),
        (["--epochs", "inf"], "--epochs must be a finite number > 0, got inf"),
        (["--epochs", "0"], "--epochs must be a finite number > 0, got 0.0"),
        (["--epochs", "-1"], "--epochs must be a finite number > 0, got -1.0"),
        (["--max-tokens", "0"], "--max-tokens must be an integer >= 1, got 0"),
        (["--epochs", "1", "--tokens-per-batch", "0"], "--tokens-per-batch must be an integer >= 1, got 0"),
        (["--epochs", "1", "--clip-norm", "-1"], "--clip-norm must be a finite number >= 0"),
        (["--epochs", "1", "--warmup-steps", "-1"], "--warmup-steps must be an integer >= 0, got -1"),
        (["--epochs", "1", "--lstm-dim", "0"], "--lstm-dim must be an integer >= 1, got 0"),
        (["--epochs", "1", "--valid-file", "missing.txt"], "--valid-file missing.txt: no such file"),
        (["--epochs", "1", "--vocab", "missing.txt"], "--vocab missing.txt: no such file"),
        (
            ["--epochs", "1", "--init-model", "missing-folder"],
            "--init-model: no model 'missing-folder': no such local file or folder",
        ),
        (["--epochs", "1", "--init-model", "{empty}"], "--init-model: {empty} is not an ELMo model folder"),
        (
            ["--epochs", "1", "--init-model", "{garbage}"],
            "--init-model: {garbage}/model.safetensors is not a readable safetensors file",
        ),
    ],
)
def test_a_rejected_run_writes_nothing_and_the_corrected_rerun_starts(option, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    (tmp_path / "empty").mkdir()
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / "config.json").write_text('{"model_type": "elmo", "softmax": "full"}')
    (tmp_path / "garbage" / "model.safetensors").write_bytes(b"not safetensors")
    option = [o.format(empty=tmp_path / "empty", garbage=tmp_path / "garbage") for o in option]
    before = sorted(p.name for p in tmp_path.iterdir())
    assert pretrain(corpus, tmp_path / "model", *option) == 2
    assert message.format(empty=tmp_path / "empty", garbage=tmp_path / "garbage") in error_of(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if option[:2] == ["--epochs", "1"]:  # the same run without the bad option is not refused
        assert pretrain(corpus, tmp_path / "model", "--max-steps", "1", "--epochs", "1") == 0


@pytest.mark.parametrize("damaged", ["checkpoint.pt", "rng-rank0.pt", "vocab.txt", "settings.json"])
@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_damaged_checkpoint_file_is_named_with_what_to_do(damaged, damage, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1") == 0
    path = tmp_path / "model.checkpoint" / damaged
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"\x00\xff garbage")
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1") == 2
    line = error_of(capsys)
    assert f"{path} is damaged" in line or (damaged == "vocab.txt" and f"{path} (one of them is damaged" in line)
    assert f"delete {tmp_path / 'model.checkpoint'}" in line
    assert not out.exists()


def test_an_output_folder_holding_the_training_file_is_refused_even_with_overwrite(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    assert pretrain(corpus, tmp_path, "--epochs", "1", "--overwrite") == 2
    assert "holds the input" in error_of(capsys)
    assert corpus.is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


def test_overwrite_never_replaces_the_init_model_however_it_is_named(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    home = tmp_path / "home"
    assert pretrain(corpus, home / "m", "--epochs", "1") == 0
    capsys.readouterr()
    (home / "m" / "NOTES.txt").write_text("mine")
    before = files_under(home)
    monkeypatch.setenv("HOME", str(home))
    for named in ("~/m", str(home / "m")):
        assert pretrain(corpus, home / "m", "--epochs", "1", "--init-model", named, "--overwrite") == 2
        assert "the output folder" in error_of(capsys) and files_under(home) == before


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_checkpoint_folder_that_is_not_a_runs_is_refused_before_anything_is_written(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    data = tmp_path / "data"
    data.mkdir()
    (data / "vocab.txt").write_text("<S>\n</S>\n<UNK>\nthe\ncat\n")
    (data / "losses.tsv").write_text("hello\n")
    before = files_under(tmp_path)
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--checkpoint-dir", str(data)) == 2
    line = error_of(capsys)
    assert f"the checkpoint folder {data} is not empty and has no settings.json" in line
    assert "pick another --checkpoint-dir" in line and "delete" not in line
    assert files_under(tmp_path) == before


def test_a_checkpoint_folder_holding_an_input_is_refused_even_with_a_settings_json(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    corpus = write_corpus(data / "train.txt", n=30)
    (data / "settings.json").write_text("not json")
    before = files_under(tmp_path)
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--checkpoint-dir", str(data)) == 2
    line = error_of(capsys)
    assert f"the checkpoint folder {data} holds the input {corpus}; pick another --checkpoint-dir" in line
    assert "delete" not in line
    assert files_under(tmp_path) == before


@pytest.mark.parametrize(
    "out, checkpoint",
    [("model", "model"), ("model", "model/checkpoint"), ("runs/model", "runs")],
    ids=["the-output", "inside-the-output", "holding-the-output"],
)
def test_a_checkpoint_folder_overlapping_the_output_folder_is_refused_before_training(
    out, checkpoint, tmp_path, capsys
):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    assert pretrain(corpus, tmp_path / out, "--epochs", "1", "--checkpoint-dir", str(tmp_path / checkpoint)) == 2
    line = error_of(capsys)
    assert f"the checkpoint folder {tmp_path / checkpoint} is, holds or lies in the output folder" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


@pytest.mark.parametrize(
    "option, message",
    [
        (["--lstm-dim", "32"], "--lstm-dim cannot change the shape of --init-model {lm} (lstm_dim 32, not its 16)"),
        (["--preset", "small"], "--preset small cannot change the shape of --init-model {lm}"),
        (["--no-clip"], "--no-clip cannot take the clipping out of --init-model {lm}"),
    ],
    ids=["lstm-dim", "preset", "no-clip"],
)
def test_an_option_that_would_change_the_init_model_is_refused_before_anything_is_written(
    option, message, tmp_path, capsys
):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    assert pretrain(corpus, tmp_path / "lm", "--max-tokens", "50") == 0  # lstm_dim 16, with clipping
    before = files_under(tmp_path)
    capsys.readouterr()
    argv = ["pretrain", str(corpus), str(tmp_path / "model"), "--init-model", str(tmp_path / "lm"), "--epochs", "1"]
    assert main([*argv, *option, "--no-progress"]) == 2
    assert message.format(lm=tmp_path / "lm") in error_of(capsys)
    assert files_under(tmp_path) == before
