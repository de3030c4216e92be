"""`elmo pretrain` checks every setting (and the validation file, and where it writes) before
writing anything, names a damaged checkpoint file with what to do, resumes only on the training
file it started with, and stops on a full disk or Ctrl-C with one line and its last checkpoint
whole."""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest
import torch

import hf_elmo.fileio
import hf_elmo.training.trainer as trainer
from hf_elmo.cli import main
from hf_elmo.configuration_elmo import upload_ignored
from hf_elmo.fileio import FREE_SPACE_RESERVE
from hf_elmo.training.checkpoints import CHECKPOINT_FILE, SETTINGS_FILE, TRAIN_FILE_IDENTITY
from hf_elmo.training.evaluation import valid_share_seen_in_training
from hf_elmo.training.vocab import Vocabulary
from tests.hf_elmo.test_convert_safety import DiskUsage
from tests.hf_elmo.test_fileio import CANNOT_WRITE, refuse_writes_in
from tests.hf_elmo.training.test_pretraining import TINY_SHAPE_ARGS, TINY_WORD_SHAPE_ARGS, write_corpus
from tests.numpy_elmo import small_options, write_random_original

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
        (["--epochs", "1e-9"], "c.txt (194 tokens) is less than one token; raise --epochs"),
        (["--max-tokens", "0"], "--max-tokens must be an integer >= 1, got 0"),
        (["--epochs", "1", "--tokens-per-batch", "0"], "--tokens-per-batch must be an integer >= 3, got 0"),
        (["--epochs", "1", "--tokens-per-batch", "2"], "--tokens-per-batch must be an integer >= 3, got 2"),
        (["--epochs", "1", "--clip-norm", "-1"], "--clip-norm must be a finite number >= 0"),
        (["--epochs", "1", "--warmup-steps", "-1"], "--warmup-steps must be an integer >= 0, got -1"),
        (["--epochs", "1", "--lr", "-1e-3"], "--lr must be a finite number > 0, got -0.001"),  # was: argparse's
        (["--epochs", "1", "--seed", "-1"], "--seed must be an integer >= 0 and <= 4294967295, got -1"),
        (["--epochs", "1", "--seed", str(2**63)], f"--seed must be an integer >= 0 and <= 4294967295, got {2**63}"),
        (["--epochs", "1", "--lstm-dim", "0"], "--lstm-dim must be an integer >= 1, got 0"),
        (  # was: accepted, and --num-sampled ignored
            ["--epochs", "1", "--softmax", "full", "--num-sampled", "3"],
            "--num-sampled applies to --softmax sampled only; drop it, or train with --softmax sampled",
        ),
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


def test_char_cnn_options_given_to_the_word_baseline_are_refused_in_one_line(tmp_path, capsys):
    """--filters and --n-highway shape the char CNN, which the baseline has none of. Was: taken, and
    ignored (the preset's, left unset, still pass)."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    argv = ["pretrain", str(corpus), str(tmp_path / "model"), *TINY_WORD_SHAPE_ARGS, "--epochs", "1"]
    argv += ["--min-count", "1", "--tokens-per-batch", "128", "--token-embedding", "word", "--no-progress"]
    for given, named in (
        (
            ["--filters", "[[1,4]]"],
            "--filters: for the char CNN only, which --token-embedding word does not have (it "
            "embeds words); drop it, or train --token-embedding char_cnn",
        ),
        (
            ["--filters", "[[1,4]]", "--n-highway", "0"],
            "--n-highway, --filters: for the char CNN only, which "
            "--token-embedding word does not have (it embeds words); drop them, or train --token-embedding char_cnn",
        ),
    ):
        assert main([*argv, *given]) == 2
        assert error_of(capsys).endswith(named)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]
    assert main([*argv, "--max-steps", "1"]) == 0


@pytest.mark.parametrize("output", [".", "./"])
def test_the_current_folder_as_output_is_refused_as_such(output, tmp_path, capsys, monkeypatch):
    """Was: "PosixPath('.') has an empty name", from naming its checkpoint folder OUTPUT_DIR.checkpoint."""
    monkeypatch.chdir(tmp_path)
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    for overwrite in ([], ["--overwrite"]):
        assert pretrain(corpus, Path(output), "--epochs", "1", *overwrite) == 2
        assert error_of(capsys).endswith(
            "the output folder . is the current folder or holds it; pick a new or empty folder"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


@pytest.mark.parametrize("damaged", ["checkpoint.pt", "rng-rank0-step1.pt", "vocab.txt", "settings.json"])
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


def test_a_settings_file_that_is_no_json_object_is_damaged_with_the_advice_of_every_damaged_file(tmp_path, capsys):
    """Was: '... (not a JSON object); delete F to start again', a wording of its own."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1") == 0
    (folder / SETTINGS_FILE).write_text("[]")
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1") == 2
    assert error_of(capsys).endswith(
        f"{folder / SETTINGS_FILE} is damaged (not a JSON object); delete {folder} to start the run again from the "
        "beginning"
    )
    assert not out.exists()


def test_a_checkpoint_whose_optimizer_state_does_not_fit_the_model_is_damaged(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1") == 0
    path = tmp_path / "model.checkpoint" / CHECKPOINT_FILE
    state = torch.load(path, weights_only=True)
    state["optimizer"]["param_groups"][0]["params"].pop()  # a parameter fewer than the model has
    torch.save(state, path)
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1") == 2
    line = error_of(capsys)
    assert f"{path} is damaged (ValueError: " in line and f"delete {tmp_path / 'model.checkpoint'}" in line
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


@pytest.mark.parametrize("under", ["ck", "ck/deeper"])
def test_a_checkpoint_folder_under_a_file_names_the_file(under, tmp_path, capsys):
    """Was: '[Errno 17] File exists: 'notes.txt'' (or '[Errno 20] Not a directory'), from making the folder."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    (tmp_path / "notes.txt").write_text("mine\n")
    folder = tmp_path / "notes.txt" / under
    before = files_under(tmp_path)
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--checkpoint-dir", str(folder)) == 2
    assert error_of(capsys) == (
        f"elmo pretrain: error: {tmp_path / 'notes.txt'} is a file, not a folder, so {folder} cannot be written under "
        "it; choose another output path"
    )
    assert files_under(tmp_path) == before


def test_a_checkpoint_folder_inside_the_init_model_folder_is_refused_before_anything_is_written(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base = tmp_path / "base"
    assert pretrain(corpus, base, "--epochs", "1") == 0
    capsys.readouterr()
    before = files_under(tmp_path)
    inside = base / "checkpoints"
    assert (
        pretrain(corpus, tmp_path / "m", "--epochs", "1", "--init-model", str(base), "--checkpoint-dir", str(inside))
        == 2
    )
    line = error_of(capsys)
    assert f"the checkpoint folder {inside} lies inside the input {base}; pick another --checkpoint-dir" in line
    assert files_under(tmp_path) == before and not inside.exists()


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


def test_a_preset_that_would_change_a_word_init_model_is_refused_naming_its_lstm_not_its_char_cnn(tmp_path, capsys):
    """A word-embedding model has no char CNN. Was: '--preset small cannot change the shape of --init-model M
    (filters [...], not its [...])'."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    options = [*TINY_WORD_SHAPE_ARGS, "--token-embedding", "word", "--max-tokens", "50", "--min-count", "1"]
    assert main(["pretrain", str(corpus), str(tmp_path / "lm"), *options, "--no-progress"]) == 0
    capsys.readouterr()
    argv = ["pretrain", str(corpus), str(tmp_path / "model"), "--init-model", str(tmp_path / "lm"), "--epochs", "1"]
    assert main([*argv, "--token-embedding", "word", "--preset", "small", "--no-progress"]) == 2
    assert error_of(capsys).endswith(
        f"--preset small cannot change the shape of --init-model {tmp_path / 'lm'} (lstm_dim 1024, not its 16): a "
        "continued model keeps its own; drop it"
    )


def test_vocab_size_or_min_count_given_where_the_vocabulary_comes_from_vocab_or_the_init_lm_is_refused_naming_it(
    tmp_path, capsys
):
    """Was: ignored without a word (the --vocab file's words, or the --init-model LM's, were the vocabulary)."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    assert pretrain(corpus, tmp_path / "lm", "--max-tokens", "50") == 0  # TINY: --vocab-size 100 --min-count 1
    vocab = tmp_path / "lm" / "vocab.txt"
    capsys.readouterr()
    before = files_under(tmp_path)
    assert pretrain(corpus, tmp_path / "m", "--epochs", "1", "--vocab", str(vocab)) == 2
    assert error_of(capsys).endswith(
        "--vocab-size 100 and --min-count 1 would build a vocabulary from the training file, but the run's "
        f"vocabulary is the words of --vocab {vocab}; drop --vocab-size and --min-count"
    )
    assert pretrain(corpus, tmp_path / "m", "--epochs", "1", "--init-model", str(tmp_path / "lm")) == 2
    assert error_of(capsys).endswith(
        "--vocab-size 100 and --min-count 1 would build a vocabulary from the training file, but the run's "
        f"vocabulary is that of --init-model {tmp_path / 'lm'}, whose softmax the run continues; drop --vocab-size "
        "and --min-count"
    )
    assert files_under(tmp_path) == before
    # left to their defaults (or given them), they are no conflict
    argv = ["pretrain", str(corpus), str(tmp_path / "m"), "--max-tokens", "50", "--tokens-per-batch", "128"]
    assert main([*argv, "--init-model", str(tmp_path / "lm"), "--vocab-size", "50000", "--no-progress"]) == 0


# -- resuming: the same training file, whole checkpoints ----------------------------------------
def test_resuming_compares_the_training_files_content_and_the_rate_that_runs_not_the_options_as_typed(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    (tmp_path / "copy.txt").write_bytes(corpus.read_bytes())
    out = tmp_path / "model"
    assert pretrain(Path("c.txt"), out, "--epochs", "2", "--max-steps", "1") == 0
    for step, (named, *extra) in enumerate(
        [("./c.txt",), (str(corpus),), ("copy.txt",), ("c.txt", "--lr", "0.2")], start=2
    ):  # Adagrad's default rate given explicitly
        assert pretrain(Path(named), out, "--epochs", "2", "--max-steps", str(step), *extra) == 0
    assert torch.load(tmp_path / "model.checkpoint" / CHECKPOINT_FILE, weights_only=True)["step"] == 5
    capsys.readouterr()
    changed = ["--lr", "0.1", "--tokens-per-batch", "64", "--lstm-dim", "8", "--n-highway", "2"]
    assert pretrain(corpus, out, "--epochs", "2", *changed) == 2
    assert error_of(capsys).endswith(
        f"{tmp_path / 'model.checkpoint'} holds a run with other settings (--lr 0.2 (now 0.1); --lstm-dim 16 (now 8); "
        "--n-highway preset (now 2); --tokens-per-batch 128 (now 64)); run the command with the saved values to "
        f"resume it, or use another --checkpoint-dir, or delete {tmp_path / 'model.checkpoint'}"
    )


def test_resuming_names_an_option_the_run_was_started_without_as_not_given(tmp_path, capsys):
    """Was: '--vocab null (now "v.txt")', the JSON of None, which is no value to give the option."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    Vocabulary.build(Counter(corpus.read_text().split())).save(tmp_path / "v.txt")
    out = tmp_path / "model"
    assert pretrain(corpus, out, "--epochs", "2", "--max-steps", "1") == 0
    capsys.readouterr()
    vocab = ["--vocab", str(tmp_path / "v.txt"), "--vocab-size", "50000", "--min-count", "3"]
    assert pretrain(corpus, out, "--epochs", "2", *vocab) == 2
    line = error_of(capsys)
    assert "other settings (--min-count 1 (now 3); --vocab not given (now " in line
    assert "null" not in line


def test_resuming_on_a_changed_training_file_is_refused_naming_it(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "2", "--max-steps", "1") == 0
    before = files_under(folder)
    write_corpus(corpus, n=30, seed=1)  # another corpus under the same name
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "2") == 2
    line = error_of(capsys)
    assert f"the training file {corpus} changed since the run in {folder} started" in line
    assert f"put the original file back to resume, or delete {folder}" in line
    assert files_under(folder) == before and not out.exists()


def test_resuming_on_a_copy_of_the_training_file_goes_on(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1") == 0
    text = corpus.read_bytes()
    corpus.unlink()
    corpus.write_bytes(text)  # same content, another file (other inode and date)
    assert pretrain(corpus, out, "--epochs", "1") == 0


def test_resuming_compares_the_vocab_file_by_its_words_not_its_path(tmp_path, capsys):
    """Was: a copy of --vocab under another path was refused as other settings, and a --vocab changed under
    the same path resumed without a word, on the checkpoint's vocabulary."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("<S>\n</S>\n<UNK>\nthe\ncat\n")
    (tmp_path / "copy.txt").write_bytes(vocab.read_bytes())
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"

    def run(vocab_file: Path, *extra: str) -> int:
        argv = ["pretrain", str(corpus), str(out), "--epochs", "2", *TINY_SHAPE_ARGS, "--tokens-per-batch", "128"]
        return main([*argv, "--vocab", str(vocab_file), "--no-progress", *extra])

    assert run(vocab, "--max-steps", "1") == 0
    assert run(tmp_path / "copy.txt", "--max-steps", "2") == 0
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == 2
    vocab.write_text("<S>\n</S>\n<UNK>\nthe\ndog\n")  # other words under the same name
    before = files_under(folder)
    capsys.readouterr()
    assert run(vocab) == 2
    assert error_of(capsys).endswith(
        f"--vocab {vocab} is not the vocabulary of the run in {folder} (its words are not those of "
        f"{folder / 'vocab.txt'}); give the file the run started with to resume, or delete {folder} to start the "
        "run again from the beginning"
    )
    assert files_under(folder) == before and not out.exists()


def test_resuming_compares_the_init_model_by_its_config_not_its_path_nor_its_weights(tmp_path, capsys):
    """Was: a copy of the --init-model folder under another path was refused as other settings, and a
    folder of another shape under the same path failed as a damaged checkpoint. The checkpoint holds the
    weights; what --init-model still gives a resumed run is its config."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base, copy = tmp_path / "base", tmp_path / "copy"
    assert pretrain(corpus, base, "--max-tokens", "50") == 0
    shutil.copytree(base, copy)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"

    def run(init_model: Path, *extra: str) -> int:
        argv = ["pretrain", str(corpus), str(out), "--epochs", "2", "--tokens-per-batch", "128"]
        return main([*argv, "--init-model", str(init_model), "--no-progress", *extra])

    assert run(base, "--max-steps", "1") == 0
    assert run(copy, "--max-steps", "2") == 0
    for other, options in (("weights", ["--seed", "1"]), ("shape", ["--lstm-dim", "8"])):
        assert pretrain(corpus, tmp_path / other, "--max-tokens", "50", *options) == 0
    shutil.rmtree(copy)
    shutil.copytree(tmp_path / "weights", copy)  # other weights, the same config
    assert run(copy, "--max-steps", "3") == 0
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == 3
    shutil.rmtree(copy)
    shutil.copytree(tmp_path / "shape", copy)  # another shape
    before = files_under(folder)
    capsys.readouterr()
    assert run(copy) == 2
    assert error_of(capsys).endswith(
        f"--init-model {copy} is not the model the run in {folder} started from (its lstm_dim 8, not 16); "
        f"give that model to resume, or delete {folder} to start the run again from the beginning"
    )
    assert files_under(folder) == before and not out.exists()


@pytest.mark.parametrize(
    "option, other, differs",
    [
        (["--lstm-dim", "16"], ["--lstm-dim", "8"], "its lstm_dim 8, not 16"),
        (["--no-clip"], [], "its cell_clip 3.0, not null; proj_clip 3.0, not null"),
    ],
    ids=["lstm-dim", "no-clip"],
)
def test_resuming_with_a_shape_option_from_an_init_model_of_another_shape_is_refused_as_a_resume(
    option, other, differs, tmp_path, capsys
):
    """A shape option the run was started with, as the base model's own shape, is given again to resume.
    Was: '--lstm-dim cannot change the shape of --init-model M (lstm_dim 16, not its 8): a continued model
    keeps its own; drop it' (or '--no-clip cannot take the clipping out of ...'), a new run's advice, which
    the resume then refused as another setting (--lstm-dim 16 (now preset))."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base, shape = tmp_path / "base", tmp_path / "shape"
    assert pretrain(corpus, base, "--max-tokens", "50", *option) == 0
    assert pretrain(corpus, shape, "--max-tokens", "50", *other) == 0
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    argv = ["pretrain", str(corpus), str(out), "--epochs", "2", "--tokens-per-batch", "128", "--no-progress"]
    assert main([*argv, "--init-model", str(base), *option, "--max-steps", "1"]) == 0
    shutil.rmtree(base)
    shutil.copytree(shape, base)
    before = files_under(folder)
    capsys.readouterr()
    assert main([*argv, "--init-model", str(base), *option]) == 2
    assert error_of(capsys).endswith(
        f"--init-model {base} is not the model the run in {folder} started from ({differs}); give that model to "
        f"resume, or delete {folder} to start the run again from the beginning"
    )
    assert files_under(folder) == before and not out.exists()


@pytest.mark.parametrize("form", ["folder", "zip"])
def test_resuming_with_a_shape_option_from_original_files_of_another_shape_is_refused_as_a_resume(
    form, tmp_path, capsys
):
    """The original files' shape is read from their options.json (a zip's too) before the model is
    loaded; the same files resume. Was: '--lstm-dim cannot change the shape of --init-model ...'."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)

    def original(name: str, lstm_dim: int) -> Path:
        folder = tmp_path / name
        write_random_original(folder, small_options(dim=lstm_dim), seed=0)
        if form == "folder":
            return folder
        with zipfile.ZipFile(folder.with_suffix(".zip"), "w") as archive:
            for file in folder.iterdir():
                archive.write(file, file.name)
        return folder.with_suffix(".zip")

    base, other = original("base", 32), original("other", 16)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    argv = ["pretrain", str(corpus), str(out), "--epochs", "2", "--tokens-per-batch", "128", "--no-progress"]
    argv += ["--lstm-dim", "32", "--vocab-size", "100"]
    assert main([*argv, "--init-model", str(base), "--max-steps", "1"]) == 0
    assert main([*argv, "--init-model", str(base), "--max-steps", "2"]) == 0
    before = files_under(folder)
    capsys.readouterr()
    assert main([*argv, "--init-model", str(other)]) == 2
    assert error_of(capsys).endswith(
        f"--init-model {other} is not the model the run in {folder} started from (its lstm_dim 16, not 32); give "
        f"that model to resume, or delete {folder} to start the run again from the beginning"
    )
    assert files_under(folder) == before and not out.exists()


def test_resuming_from_an_init_model_whose_vocab_changed_is_refused_as_a_resume_saying_what_differs(tmp_path, capsys):
    """Was: 'M was trained with its own vocab.txt; continue with --vocab M/vocab.txt', a new run's advice,
    which the resume then refused as another setting (--vocab given where the run had none)."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base = tmp_path / "base"
    assert pretrain(corpus, base, "--max-tokens", "50") == 0
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"

    def run(*extra: str) -> int:
        argv = ["pretrain", str(corpus), str(out), "--epochs", "2", "--tokens-per-batch", "128"]
        return main([*argv, "--init-model", str(base), "--no-progress", *extra])

    assert run("--max-steps", "1") == 0
    words = (base / "vocab.txt").read_text().splitlines()
    (base / "vocab.txt").write_text("\n".join(words[:3] + words[3:][::-1]) + "\n")  # as many words, other rows
    before = files_under(folder)
    capsys.readouterr()
    assert run() == 2
    assert error_of(capsys).endswith(
        f"--init-model {base} is not the model the run in {folder} started from (its vocab.txt's words are not "
        f"those of {folder / 'vocab.txt'}); give that model to resume, or delete {folder} to start the run again "
        "from the beginning"
    )
    assert files_under(folder) == before and not out.exists()


def test_resuming_from_an_init_model_of_another_token_embedding_is_refused_naming_only_the_token_embedding(
    tmp_path, capsys
):
    """Was: '--init-model M embeds tokens with 'word', not --token-embedding char_cnn: ...; give
    --token-embedding word', a new run's advice, which the resume then refused as another setting;
    then the refusal also listed the char-CNN fields of the word model, which has no char CNN
    ('its filters [...], not [...]')."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base, word = tmp_path / "base", tmp_path / "word"
    options = [*TINY_WORD_SHAPE_ARGS, "--max-tokens", "50", "--tokens-per-batch", "128", "--no-progress"]
    assert main(["pretrain", str(corpus), str(base), *options, "--filters", "[[1,4],[2,8]]", "--min-count", "1"]) == 0
    shutil.copy(base / "vocab.txt", tmp_path / "v.txt")  # the same words, another token embedder:
    options += ["--vocab", str(tmp_path / "v.txt"), "--token-embedding", "word"]
    assert main(["pretrain", str(corpus), str(word), *options]) == 0
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    argv = ["pretrain", str(corpus), str(out), "--epochs", "2", "--tokens-per-batch", "128", "--no-progress"]
    assert main([*argv, "--init-model", str(base), "--max-steps", "1"]) == 0
    shutil.rmtree(base)
    shutil.copytree(word, base)
    before = files_under(folder)
    capsys.readouterr()
    assert main([*argv, "--init-model", str(base)]) == 2
    assert error_of(capsys).endswith(
        f'--init-model {base} is not the model the run in {folder} started from (its token_embedding "word", not '
        f'"char_cnn"); give that model to resume, or delete {folder} to start the run again from the beginning'
    )
    assert files_under(folder) == before and not out.exists()


def test_resuming_a_word_run_from_a_word_model_of_other_char_cnn_fields_goes_on(tmp_path):
    """The char-CNN fields of a word model's config (its preset's) shape nothing. Was: refused as another
    model ('its filters [...], not [...]')."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    base, other = tmp_path / "base", tmp_path / "other"
    options = ["--token-embedding", "word", "--max-tokens", "50", "--tokens-per-batch", "128", "--no-progress"]
    assert main(["pretrain", str(corpus), str(base), *TINY_WORD_SHAPE_ARGS, *options, "--min-count", "1"]) == 0
    shutil.copy(base / "vocab.txt", tmp_path / "v.txt")  # the same words and LSTM, the "small" preset's filters:
    options += [*TINY_WORD_SHAPE_ARGS[2:], "--preset", "small", "--vocab", str(tmp_path / "v.txt")]
    assert main(["pretrain", str(corpus), str(other), *options]) == 0
    assert (
        json.loads((other / "config.json").read_text())["filters"]
        != json.loads((base / "config.json").read_text())["filters"]
    )
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    argv = ["pretrain", str(corpus), str(out), "--epochs", "2", "--tokens-per-batch", "128", "--no-progress"]
    argv += ["--token-embedding", "word"]
    assert main([*argv, "--init-model", str(base), "--max-steps", "1"]) == 0
    shutil.rmtree(base)
    shutil.copytree(other, base)
    assert main([*argv, "--init-model", str(base), "--max-steps", "2"]) == 0
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == 2


def test_a_checkpoint_saved_before_the_training_file_was_recorded_resumes_and_records_it(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1") == 0
    settings_path = tmp_path / "model.checkpoint" / SETTINGS_FILE
    saved = json.loads(settings_path.read_text())
    recorded = saved.pop(TRAIN_FILE_IDENTITY)
    settings_path.write_text(json.dumps(saved))  # as an older version wrote it
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "2") == 0
    assert json.loads(settings_path.read_text())[TRAIN_FILE_IDENTITY]["input_sha256"] == recorded["input_sha256"]


def test_a_full_softmax_run_whose_checkpoint_recorded_a_num_sampled_resumes(tmp_path):
    """Runs from before --num-sampled defaulted to the model config's saved 4096 whatever the
    softmax: the check that refuses --num-sampled with --softmax full is of the options given."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1", "--softmax", "full") == 0
    settings_path = tmp_path / "model.checkpoint" / SETTINGS_FILE
    saved = json.loads(settings_path.read_text())
    assert saved["num_sampled"] is None
    settings_path.write_text(json.dumps({**saved, "num_sampled": 4096}))  # as an older version wrote it
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "2", "--softmax", "full") == 0
    assert torch.load(tmp_path / "model.checkpoint" / CHECKPOINT_FILE, weights_only=True)["step"] == 2


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "holds no tokens"),
        (b"fine\n\x00\x01 binary\n", "valid.txt:2: NUL byte"),
        (b"caf\xe9\n", "valid.txt:1: not valid UTF-8 (byte 0xe9 at character 4)"),
        (None, "is a folder"),
    ],
    ids=["empty", "binary", "latin1", "folder"],
)
def test_a_bad_valid_file_is_refused_before_anything_is_written(content, message, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    valid = tmp_path / "valid.txt"
    valid.mkdir() if content is None else valid.write_bytes(content)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--valid-file", str(valid)) == 2
    assert message in error_of(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize(
    "corpus_text, option, message",
    [
        ("", [], "holds no tokens"),
        (
            "the cat sat\n",
            ["--min-count", "2"],
            "no word of the training text occurs 2 times or more, as --min-count 2 asks",
        ),
    ],
    ids=["empty-corpus", "min-count"],
)
def test_a_run_refused_once_it_holds_its_folders_leaves_none_of_the_folders_it_made_on_the_way(
    corpus_text, option, message, tmp_path, capsys
):
    """Was: the folders on the way to OUTPUT_DIR and --checkpoint-dir, made for their locks, stayed (empty)."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(corpus_text)
    out, checkpoints = tmp_path / "runs" / "en" / "model", tmp_path / "ck" / "en" / "run"
    assert pretrain(corpus, out, "--epochs", "1", "--checkpoint-dir", str(checkpoints), *option) == 2
    assert message in error_of(capsys)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["c.txt"]
    (tmp_path / "runs").mkdir()  # a folder of the user's on the way stays
    assert pretrain(corpus, out, "--epochs", "1", "--checkpoint-dir", str(checkpoints), *option) == 2
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["c.txt", "runs"]


@pytest.mark.parametrize("role", ["the training file", "--valid-file", "--vocab"])
def test_an_input_that_is_a_pipe_is_refused_as_no_regular_file(role, tmp_path, capsys):
    """Was: 'the training file PIPE: no such file', of a path that exists (a pipe is read more than once)."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    options = [] if role == "the training file" else [role, str(pipe)]
    assert pretrain(pipe if role == "the training file" else corpus, tmp_path / "model", "--epochs", "1", *options) == 2
    assert error_of(capsys).endswith(
        f"{role} {pipe} is not a regular file (a pipe, stdin or a device?), which is read more than once; "
        "save the text to a file"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "pipe"]


@pytest.mark.parametrize("code", CANNOT_WRITE)
@pytest.mark.parametrize("where", ["output", "checkpoint", "output in a new folder"])
def test_an_unwritable_or_read_only_output_or_checkpoint_location_is_refused_before_training_with_its_reason(
    where, code, tmp_path, capsys, monkeypatch
):
    """Was: a read-only file system told as 'Permission denied' (os.access), and root's writes let through."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    locked = tmp_path / "locked"
    locked.mkdir()
    refuse_writes_in(monkeypatch, locked, code)
    out, checkpoints = {
        "output": (locked / "model", tmp_path / "ck"),
        "checkpoint": (tmp_path / "m", locked / "ck"),
        "output in a new folder": (locked / "new" / "model", tmp_path / "ck"),
    }[where]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert pretrain(corpus, out, "--epochs", "1", "--checkpoint-dir", str(checkpoints)) == 2
    written = checkpoints if where == "checkpoint" else out
    assert error_of(capsys).endswith(f"cannot write {written}: {locked} is not writable ({os.strerror(code)})")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_a_full_disk_at_a_checkpoint_is_one_line_and_the_last_checkpoint_resumes(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "2", "--max-steps", "2") == 0
    saved = {name: (folder / name).read_bytes() for name in (CHECKPOINT_FILE, "rng-rank0-step2.pt")}
    capsys.readouterr()
    monkeypatch.setattr(  # the disk has room for the loss log, not for the next checkpoint
        hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, FREE_SPACE_RESERVE + 1000)
    )
    assert pretrain(corpus, out, "--epochs", "2", "--checkpoint-every-steps", "1") == 2
    line = error_of(capsys)
    assert f"no space left on the disk of {folder} for a checkpoint of step 3" in line
    assert "run the same command again: it resumes from the last checkpoint" in line
    assert {name: (folder / name).read_bytes() for name in saved} == saved and not list(folder.glob("*.tmp"))
    monkeypatch.undo()
    assert pretrain(corpus, out, "--epochs", "2") == 0


def test_a_checkpoint_write_that_fails_midway_keeps_the_last_checkpoint(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "2", "--max-steps", "2") == 0
    saved = (folder / CHECKPOINT_FILE).read_bytes()
    capsys.readouterr()
    real_save = torch.save

    def disk_fills(obj, path):  # what torch reports when the disk fills during the write
        if "model" in obj:
            Path(path).write_bytes(b"PK half a checkpoint")
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 41344 vs 41232")
        real_save(obj, path)

    monkeypatch.setattr(torch, "save", disk_fills)
    assert pretrain(corpus, out, "--epochs", "2", "--max-steps", "3") == 2
    line = error_of(capsys)
    assert (
        f"could not write {folder / CHECKPOINT_FILE} ([enforce fail" in line and "the last checkpoint is kept" in line
    )
    assert (folder / CHECKPOINT_FILE).read_bytes() == saved and not list(folder.glob("*.tmp"))
    monkeypatch.undo()
    assert pretrain(corpus, out, "--epochs", "2") == 0


def test_a_run_whose_loss_is_no_longer_finite_stops_in_one_line_keeping_the_checkpoint_before(
    tmp_path, capsys, monkeypatch
):
    """Was: a diverged run trained on with NaN weights, replaced its checkpoints with them, and wrote a
    model folder that no loader takes, saying 'wrote' and perplexity nan."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    real_step, steps = trainer.train_step, []

    def diverging_step(model, *args):
        steps.append(len(steps) + 1)
        if len(steps) == 3:  # the update of step 3 makes the weights NaN, as a far too high --lr does
            real_step(model, *args)
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter.fill_(float("nan"))
            return torch.tensor(float("nan"))
        return real_step(model, *args)

    monkeypatch.setattr(trainer, "train_step", diverging_step)
    assert pretrain(corpus, out, "--epochs", "2", "--checkpoint-every-steps", "1") == 2
    assert error_of(capsys) == (
        "elmo pretrain: error: the training loss is nan at step 3: the run diverged, and it stops without saving "
        f"this step; its last checkpoint, in {folder}, is kept; start the run again with a lower --lr (or with "
        f"--clip-norm) in another --checkpoint-dir, or delete {folder} first"
    )
    state = torch.load(folder / CHECKPOINT_FILE, weights_only=True)
    assert state["step"] == 2 and all(torch.isfinite(t).all() for t in state["model"].values())
    assert (folder / "losses.tsv").read_text().splitlines()[-1].startswith("2\t")
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "model.checkpoint"]
    monkeypatch.setattr(trainer, "train_step", real_step)
    assert pretrain(corpus, out, "--epochs", "2") == 0  # the same command resumes from step 2


def test_a_finished_run_whose_model_folder_failed_writes_it_when_run_again_without_training_more(
    tmp_path, capsys, monkeypatch
):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "no space left on the disk (simulated)")

    monkeypatch.setattr(trainer, "save_lm_folder", full_disk)
    assert pretrain(corpus, out, "--epochs", "1") == 2
    assert "no space left on the disk" in error_of(capsys) and not out.exists()
    steps = torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"]
    monkeypatch.undo()
    assert pretrain(corpus, out, "--epochs", "1") == 0
    assert json.loads((out / "training.json").read_text())["position"]["step"] == steps
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == steps


def test_a_finished_run_run_again_says_that_overwrite_continues_it_from_its_checkpoint(tmp_path, capsys):
    """Was: "exists and is not empty (pass --overwrite to replace it)", though --overwrite then
    continues the run from its checkpoint rather than training a new model."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "1") == 0
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1") == 2
    assert error_of(capsys) == (
        f"elmo pretrain: error: {out} holds the model of the run whose checkpoint is {folder}: pass --overwrite to "
        "continue that run from its checkpoint (e.g. with a larger --epochs or --max-tokens) and replace the model, "
        f"or choose another output folder (or delete {folder} first, to train a new model with --overwrite)"
    )
    steps = torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"]
    assert pretrain(corpus, out, "--epochs", "1", "--overwrite") == 0  # the same run: nothing more to train
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == steps
    assert pretrain(corpus, out, "--epochs", "2", "--overwrite") == 0  # continued
    assert json.loads((out / "training.json").read_text())["position"]["step"] > steps
    shutil.rmtree(folder)
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1") == 2  # no run to continue: --overwrite trains a new model
    assert error_of(capsys) == f"elmo pretrain: error: {out} exists and is not empty (pass --overwrite to replace it)"


@pytest.mark.parametrize("step", ["3", 2.5, -1, True])
def test_a_checkpoint_whose_step_is_not_a_count_is_damaged(step, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1") == 0
    state = torch.load(folder / CHECKPOINT_FILE, weights_only=True)
    torch.save({**state, "step": step}, folder / CHECKPOINT_FILE)
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1") == 2
    line = error_of(capsys)
    assert f"{folder / CHECKPOINT_FILE} is damaged (TypeError: its step is {step!r}, not a count)" in line
    assert f"delete {folder}" in line


def test_a_run_stopped_before_its_first_checkpoint_does_not_bind_the_next_runs_settings(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(trainer, "train_step", interrupted)  # Ctrl-C (or an out-of-memory) in the first step
    assert pretrain(corpus, out, "--epochs", "1") == 130
    assert (folder / SETTINGS_FILE).is_file() and not (folder / CHECKPOINT_FILE).exists()
    monkeypatch.undo()
    assert pretrain(corpus, out, "--epochs", "1", "--tokens-per-batch", "64", "--vocab-size", "10") == 0
    saved = json.loads((folder / SETTINGS_FILE).read_text())
    assert (saved["tokens_per_batch"], saved["vocab_size"]) == (64, 10)
    assert len((folder / "vocab.txt").read_text().splitlines()) == 10


def test_a_run_stopped_after_a_snapshot_but_before_its_first_checkpoint_binds_the_next_runs_settings(
    tmp_path, capsys, monkeypatch
):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    real_step, steps = trainer.train_step, []

    def ctrl_c_at_step_4(*args, **kwargs):
        steps.append(1)
        if len(steps) == 4:
            raise KeyboardInterrupt
        return real_step(*args, **kwargs)

    monkeypatch.setattr(trainer, "train_step", ctrl_c_at_step_4)
    assert pretrain(corpus, out, "--epochs", "1", "--snapshot-tokens", "60") == 130
    snapshot = folder / "tokens-60"
    assert (snapshot / "config.json").is_file() and not (folder / CHECKPOINT_FILE).exists()
    monkeypatch.undo()
    capsys.readouterr()
    # another model would train beside the snapshot of this one, which passes as its own
    assert pretrain(corpus, out, "--epochs", "1", "--snapshot-tokens", "60", "--lstm-dim", "8") == 2
    assert "holds a run with other settings (--lstm-dim 16 (now 8))" in error_of(capsys)
    assert json.loads((snapshot / "config.json").read_text())["lstm_dim"] == 16 and not out.exists()
    # the same command trains the run again and writes the same snapshot
    assert pretrain(corpus, out, "--epochs", "1", "--snapshot-tokens", "60") == 0
    assert json.loads((snapshot / "config.json").read_text())["lstm_dim"] == 16


@pytest.mark.parametrize(
    "second_output, second_checkpoints, refusal",
    [
        (
            "model",
            None,
            "{tmp}/model is being trained by another run of elmo pretrain (it holds {tmp}/model.lock); "
            "wait for it to end, or write elsewhere",
        ),
        (
            "model",
            "other.ckpt",
            "{tmp}/model is being trained by another run of elmo pretrain (it holds "
            "{tmp}/model.lock); wait for it to end, or write elsewhere",
        ),
        (
            "other",
            "shared.ckpt",
            "{tmp}/shared.ckpt is the checkpoint folder of another run of elmo pretrain (it "
            "holds {tmp}/shared.ckpt.lock); wait for it to end, or give another --checkpoint-dir",
        ),
    ],
    ids=["same-command", "same-output-other-checkpoints", "other-output-same-checkpoints"],
)
def test_a_second_run_that_shares_the_output_or_the_checkpoints_is_refused_while_the_first_trains(
    tmp_path, capsys, monkeypatch, second_output, second_checkpoints, refusal
):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    first_checkpoints = ["--checkpoint-dir", str(tmp_path / "shared.ckpt")] if second_output == "other" else []
    folder = tmp_path / (second_checkpoints or "model.checkpoint")
    second_options = ["--checkpoint-dir", str(folder)] if second_checkpoints else []
    real_step, second = trainer.train_step, {}

    def step_with_a_second_run(*args, **kwargs):  # a second run started while the first trains
        if not second:
            second["status"] = "running"  # its own steps (old code: it trained) do not start a third run
            second["status"] = pretrain(
                corpus, tmp_path / second_output, "--epochs", "1", "--checkpoint-every-steps", "1", *second_options
            )
            second["error"] = error_of(capsys)
            second["checkpoint"] = (folder / CHECKPOINT_FILE).exists()
        return real_step(*args, **kwargs)

    monkeypatch.setattr(trainer, "train_step", step_with_a_second_run)
    assert pretrain(corpus, out, "--epochs", "1", *first_checkpoints) == 0
    assert second == {
        "status": 2,
        "error": "elmo pretrain: error: " + refusal.format(tmp=tmp_path),
        "checkpoint": False,
    }
    assert not list(tmp_path.glob("*.lock")) and (out / "model.safetensors").is_file()
    assert not (tmp_path / "other").exists()


def test_a_tokens_per_batch_below_the_longest_sentence_warns_once_naming_both_options(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    longer = sum(len(line.split()) + 2 > 8 for line in corpus.read_text().splitlines())
    assert 0 < longer < 30
    assert pretrain(corpus, tmp_path / "a", "--epochs", "1", "--max-steps", "1") == 0
    assert capsys.readouterr().err == ""
    assert pretrain(corpus, tmp_path / "b", "--epochs", "1", "--max-steps", "1", "--tokens-per-batch", "8") == 0
    assert capsys.readouterr().err.splitlines() == [
        "elmo pretrain: warning: "
        f"--tokens-per-batch 8 is below --max-sentence-tokens 100 + 2 (the sentence markers): {longer} of the 30 "
        f"sentences of {corpus} get a batch of their own, larger than 8 tokens; raise --tokens-per-batch or lower "
        "--max-sentence-tokens"
    ]


def test_a_valid_file_whose_sentences_are_in_the_training_file_warns_that_it_is_not_held_out(tmp_path, capsys):
    """Was: no word of it; the card's validation perplexity was then that of the training text."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    lines = corpus.read_text().splitlines()
    (tmp_path / "copy.txt").write_text("\r\n".join(lines) + "\r\n")
    (tmp_path / "part.txt").write_text("\n".join(lines[:10] + ["the ball sees the cat ."] * 2) + "\n")
    held_out = tmp_path / "held-out.txt"  # objects as subjects: sentences the toy corpus never has
    held_out.write_text("the ball sees the cat .\na stick likes my friend .\n" + lines[0] + "\n")
    for valid, shared, total in ((corpus, 30, 30), (tmp_path / "copy.txt", 30, 30), (tmp_path / "part.txt", 10, 12)):
        out = tmp_path / f"m-{valid.stem}"
        assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "1", "--valid-file", str(valid)) == 0
        assert capsys.readouterr().err.splitlines() == [
            f"elmo pretrain: warning: {shared} of the {total} sentences of --valid-file {valid} ({shared / total:.0%}) "
            f"are also in the training file {corpus}: the validation perplexity of the model card would measure "
            "text the model was trained on; give text held out from the training file"
        ]
    assert pretrain(corpus, tmp_path / "m", "--epochs", "1", "--max-steps", "1", "--valid-file", str(held_out)) == 0
    assert capsys.readouterr().err == ""  # one sentence of three in the training text: held out, as far as can be told


def test_valid_share_seen_in_training_counts_each_validation_sentence_found_among_the_training_sentences():
    training = ["a b .", "c d .", "a b ."]
    assert valid_share_seen_in_training(["a b .", "a b .", "x y .", "c d ."], iter(training)) == 0.75
    assert valid_share_seen_in_training(["x y ."], training) == 0.0
    assert valid_share_seen_in_training([], training) == 0.0


def test_the_card_and_the_last_line_give_the_share_of_the_validation_sentences_also_in_the_training_text(
    tmp_path, capsys
):
    """Was: the warning at the run's start alone (from half of them); the card's validation perplexity of
    a file that shared fewer read as that of held-out text."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    held_out = tmp_path / "held-out.txt"  # objects as subjects: sentences the toy corpus never has
    held_out.write_text("the ball sees the cat .\na stick likes my friend .\n")
    some_seen = tmp_path / "some-seen.txt"
    some_seen.write_text(held_out.read_text() + corpus.read_text().splitlines()[0] + "\n")
    for valid, share, caveat in (
        (held_out, 0.0, ""),
        (
            some_seen,
            1 / 3,
            "; 33.3% of its sentences are also in the training text, so it is lower than on held-out text",
        ),
    ):
        out = tmp_path / f"m-{valid.stem}"
        assert pretrain(corpus, out, "--max-tokens", "50", "--valid-file", str(valid)) == 0
        (row,) = [line for line in (out / "README.md").read_text().splitlines() if line.startswith("| perplexity")]
        assert row.endswith(f"<UNK>{caveat}) |")
        assert capsys.readouterr().out.splitlines()[-1].endswith(f"<UNK>{caveat})")
        metrics = json.loads((out / "training.json").read_text())["metrics"]
        assert metrics["valid_share_seen_in_training"] == pytest.approx(share)


def test_a_vocabulary_that_lacks_most_of_the_training_words_warns_naming_the_commonest(tmp_path, capsys):
    """Was: no word of it; a --vocab (or an --init-model LM's vocab.txt) of text cased or split otherwise
    trained the whole run on <UNK>, and the card's perplexity on held-out text of the vocabulary's kind
    looked fine."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    upper = tmp_path / "upper.txt"
    upper.write_text("THE CAT THE DOG THE CAT\n" * 10)  # 60 tokens: the toy language's words in upper case
    base = tmp_path / "base"
    assert pretrain(corpus, base, "--max-tokens", "50") == 0
    vocab = base / "vocab.txt"
    capsys.readouterr()

    def run(train: Path, out: str, *extra: str) -> int:
        argv = ["pretrain", str(train), str(tmp_path / out), "--max-steps", "1", "--epochs", "1"]
        return main([*argv, "--tokens-per-batch", "128", "--no-progress", *extra])

    assert run(upper, "a", *TINY_SHAPE_ARGS, "--vocab", str(vocab)) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"elmo pretrain: warning: 100% of the 60 tokens of the training file {upper} are not words of "
        f"--vocab {vocab} and train as <UNK> (the commonest: 'THE', 'CAT', 'DOG'): the biLM would learn little "
        "of them; split and case the training text as the vocabulary's words are"
    ]
    assert run(upper, "b", "--init-model", str(base)) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"elmo pretrain: warning: 100% of the 60 tokens of the training file {upper} are not words of "
        f"the vocab.txt of --init-model {base} and train as <UNK> (the commonest: 'THE', 'CAT', 'DOG'): the biLM "
        "would learn little of them; split and case the training text as the vocabulary's words are"
    ]
    assert run(corpus, "c", *TINY_SHAPE_ARGS, "--vocab", str(vocab)) == 0  # its own words
    assert capsys.readouterr().err == ""


def write_zipf_text(path: Path, words: list[str], seed: int, n: int = 600) -> Path:
    """``n`` sentences of 10 of ``words``, the k-th drawn with a probability proportional to 1 / (k + 1)."""
    rng = random.Random(seed)
    weights = [1 / (k + 1) for k in range(len(words))]
    path.write_text("".join(" ".join(rng.choices(words, weights, k=10)) + "\n" for _ in range(n)))
    return path


def test_a_vocabulary_out_of_frequency_order_warns_under_the_sampled_softmax_and_not_under_the_full_one(
    tmp_path, capsys
):
    """Was: no word of it; the sampled softmax draws its candidates log-uniformly over the ids, as if they
    were in decreasing frequency (bilm-tf's vocabulary must be sorted so), and a --vocab in alphabetical or
    random order trained silently badly. Our builder's vocabulary of other text of the same language, ties
    alphabetical, does not warn."""
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    language = list(dict.fromkeys("".join(rng.choices(letters, k=rng.randint(2, 8))) for _ in range(900)))
    corpus = write_zipf_text(tmp_path / "c.txt", language, seed=1)
    other = write_zipf_text(tmp_path / "other.txt", language, seed=2)
    by_count = tmp_path / "by-count.txt"
    Vocabulary.build(Counter(other.read_text().split())).save(by_count)
    words = by_count.read_text().split()[3:]
    assert len(set(corpus.read_text().split()) & set(words)) >= trainer.ORDER_SAMPLE_WORDS
    alphabetical, shuffled = tmp_path / "alphabetical.txt", tmp_path / "shuffled.txt"
    alphabetical.write_text("\n".join(["<S>", "</S>", "<UNK>", *sorted(words)]) + "\n")
    rng.shuffle(words)
    shuffled.write_text("\n".join(["<S>", "</S>", "<UNK>", *words]) + "\n")

    def run(out: str, *extra: str) -> list[str]:
        argv = ["pretrain", str(corpus), str(tmp_path / out), *TINY_SHAPE_ARGS, "--tokens-per-batch", "512"]
        sampled = [] if "--softmax" in extra else ["--num-sampled", "64"]  # full: --num-sampled is refused
        assert main([*argv, "--no-progress", *sampled, *extra]) == 0
        return capsys.readouterr().err.splitlines()

    assert run("a", "--max-steps", "1", "--epochs", "1", "--vocab", str(by_count)) == []
    for vocab in (alphabetical, shuffled):
        [line] = run(f"m-{vocab.stem}", "--max-tokens", "600", "--vocab", str(vocab))
        assert line.startswith(
            f"elmo pretrain: warning: --vocab {vocab} is not in decreasing frequency: the rank correlation of its "
            f"ids with the counts of its words in the training file {corpus} is "
        )
        assert line.endswith(
            " (one sorted by count is near -1), and the sampled softmax draws its candidates as if the first ids "
            f"were the commonest words; sort {vocab} by decreasing count (<S>, </S>, <UNK> first), as elmo "
            "pretrain builds it without --vocab, or give --softmax full"
        )
    [line] = run("b", "--max-steps", "1", "--epochs", "1", "--init-model", str(tmp_path / "m-shuffled"))
    assert line.startswith(
        f"elmo pretrain: warning: the vocab.txt of --init-model {tmp_path / 'm-shuffled'} is not in decreasing "
        "frequency: "
    )
    assert line.endswith("; give --softmax full (its softmax rows follow that order)")
    assert run("c", "--max-steps", "1", "--epochs", "1", "--vocab", str(shuffled), "--softmax", "full") == []


def test_push_to_hub_is_checked_before_training_and_a_failed_push_says_the_folder_is_written(
    tmp_path, capsys, monkeypatch
):
    """Was: an invalid repository id, or no token, failed only once the whole run had trained; a network
    error was a traceback (httpx's ConnectError is no OSError); neither said that the model folder was
    written, and the validation perplexity went unprinted."""
    import huggingface_hub

    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out = tmp_path / "model"
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_test")
    assert pretrain(corpus, out, "--epochs", "1", "--push-to-hub", "my model") == 2
    assert error_of(capsys).startswith("elmo pretrain: error: --push-to-hub 'my model': Repo id must use")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    assert pretrain(corpus, out, "--epochs", "1", "--push-to-hub", "me/elmo") == 2
    assert error_of(capsys) == (
        "elmo pretrain: error: --push-to-hub me/elmo needs a Hugging Face token to upload with, and none is set: "
        "log in first (hf auth login, or set HF_TOKEN), or leave --push-to-hub out and upload the folder later "
        "(hf upload)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]

    class ConnectError(Exception):  # as httpx's: no OSError
        pass

    def unreachable(*args, **kwargs):
        raise ConnectError("[Errno -2] Name or service not known")

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_test")
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", unreachable)
    assert pretrain(corpus, out, "--epochs", "1", "--push-to-hub", "me/elmo") == 2
    assert error_of(capsys) == (
        f"elmo pretrain: error: {out} is written, but pushing it to the Hub repository me/elmo failed (ConnectError: "
        f"[Errno -2] Name or service not known); push it again with: hf upload me/elmo {out}"
    )
    assert (out / "config.json").is_file()
    pushed = []
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", lambda self, repo_id, **kw: pushed.append(repo_id))
    monkeypatch.setattr(huggingface_hub.HfApi, "upload_folder", lambda self, **kw: pushed.append(kw))
    assert pretrain(corpus, out, "--epochs", "1", "--push-to-hub", "me/elmo", "--overwrite") == 0
    assert pushed == ["me/elmo", {"folder_path": str(out), "repo_id": "me/elmo", "ignore_patterns": upload_ignored()}]
    assert capsys.readouterr().out.splitlines() == [f"wrote {out}", f"pushed {out} to me/elmo"]


def test_a_checkpoint_folder_given_as_a_model_is_named_as_such_with_where_the_model_is(tmp_path, capsys):
    """Was: 'is not an ELMo model folder: it holds neither config.json + model.safetensors ... nor
    options.json + a weights .hdf5', and for its checkpoint.pt (a zip file) 'does not hold one
    options.json with a weights .hdf5 beside it (found options.json in [])'."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    folder = tmp_path / "model.checkpoint"
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--max-steps", "1") == 0
    said = (
        f"{folder} is the checkpoint folder of an `elmo pretrain` run (its weights, optimizer and data position, "
        "to resume it), not a model: use the model folder that the run writes at its end (run its command again "
        "to finish it), or a snapshot that --snapshot-tokens wrote in it"
    )
    for model in (folder, folder / CHECKPOINT_FILE):
        capsys.readouterr()
        assert main(["perplexity", str(corpus), "--model", str(model), "--no-progress"]) == 2
        assert error_of(capsys) == f"elmo perplexity: error: {said}"
        assert main(["export", str(model), str(tmp_path / "served")]) == 2
        assert error_of(capsys) == f"elmo export: error: {said}"
        assert pretrain(corpus, tmp_path / "more", "--epochs", "1", "--init-model", str(model)) == 2
        assert error_of(capsys) == f"elmo pretrain: error: --init-model: {said}"


def test_under_torchrun_only_rank_0_says_what_the_run_did(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    monkeypatch.setenv("RANK", "1")  # what torchrun sets (the run itself is one process here)
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--max-steps", "1") == 0
    assert capsys.readouterr().out == ""
    monkeypatch.delenv("RANK")
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1", "--max-steps", "2") == 0
    assert (
        capsys.readouterr().out
        == "stopped at --max-steps 2; to go on, run the command again with a larger --max-steps or without it\n"
    )


def test_a_garbage_line_in_the_loss_log_is_named_and_a_cut_last_line_is_dropped(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    out, log = tmp_path / "model", tmp_path / "model.checkpoint" / "losses.tsv"
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "2") == 0
    good = log.read_text()
    log.write_text(good + "hello\n")
    capsys.readouterr()
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "3") == 2
    assert f"{log}:4: not a step of the loss log" in error_of(capsys)
    log.write_text(good + "1")  # a line cut by a full disk
    assert pretrain(corpus, out, "--epochs", "1", "--max-steps", "3") == 0
    lines = log.read_text().splitlines()
    assert [line.split("\t")[0] for line in lines[1:]] == ["1", "2", "3"]


def test_ctrl_c_is_one_line_naming_the_checkpoint_that_resumes_and_status_130(tmp_path, capsys, monkeypatch):
    corpus = write_corpus(tmp_path / "c.txt", n=60)
    out, folder = tmp_path / "model", tmp_path / "model.checkpoint"
    real_step = trainer.train_step
    calls = {"n": 0}

    def interrupted_at(step):
        def train_step(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == step:
                raise KeyboardInterrupt
            return real_step(*args, **kwargs)

        return train_step

    monkeypatch.setattr(trainer, "train_step", interrupted_at(1))
    assert pretrain(corpus, out, "--epochs", "2", "--checkpoint-every-steps", "2") == 130
    assert error_of(capsys) == (
        "elmo pretrain: interrupted; no checkpoint was taken yet: the same command starts the run again"
    )
    calls["n"] = 0
    monkeypatch.setattr(trainer, "train_step", interrupted_at(4))
    assert pretrain(corpus, out, "--epochs", "2", "--checkpoint-every-steps", "2") == 130
    assert (
        error_of(capsys)
        == f"elmo pretrain: interrupted; the last checkpoint, in {folder}, resumes with the same command"
    )
    assert torch.load(folder / CHECKPOINT_FILE, weights_only=True)["step"] == 2 and not out.exists()
    monkeypatch.setattr(trainer, "train_step", real_step)
    assert pretrain(corpus, out, "--epochs", "2", "--checkpoint-every-steps", "2") == 0


@pytest.mark.parametrize("locked", ["model", "model.checkpoint"])
def test_a_folder_where_a_runs_lock_file_goes_is_one_line_naming_it_and_kept(locked, tmp_path, capsys):
    """Was: "[Errno 21] Is a directory: '.../model.lock'" (or the checkpoint folder's lock)."""
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    theirs = tmp_path / f"{locked}.lock"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    assert pretrain(corpus, tmp_path / "model", "--epochs", "1") == 2
    assert error_of(capsys) == (
        f"elmo pretrain: error: {theirs} is a folder, where elmo locks its output; move it, or write elsewhere"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", theirs.name]
    assert (theirs / "notes.txt").read_text() == "mine"
