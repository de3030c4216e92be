"""`elmo pretrain`'s options are PretrainSettings' fields: a left-out option is the field's
default, a given one reaches its field, and the choices are the ones the settings check.
`elmo perplexity` reads its file as `elmo pretrain` reads a corpus."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import MISSING, fields

import pytest
import torch

from hf_elmo.configuration_elmo import BILM_IMPLEMENTATIONS
from hf_elmo.training.options import EVAL_TOKENS_PER_BATCH
from hf_elmo.training.settings import PretrainSettings, check_settings, flag
from hf_elmo_cli import build_parser, main
from hf_elmo_cli.commands._args import option_type
from hf_elmo_cli.commands.pretrain import settings_from_args

OPTIONS = [f for f in fields(PretrainSettings) if f.metadata and f.default is not MISSING]


def settings_of(*argv: str) -> PretrainSettings:
    return settings_from_args(build_parser().parse_args(["pretrain", "c.txt", "out", *argv]))


def test_options_left_out_have_the_settings_defaults():
    args = build_parser().parse_args(["pretrain", "c.txt", "out", "--epochs", "1"])
    assert {f.name for f in fields(PretrainSettings)} - {"config_overrides"} <= set(vars(args))
    assert settings_from_args(args) == PretrainSettings(train_file="c.txt", output_dir="out", epochs=1.0)
    for option in OPTIONS:
        if option.name != "epochs":
            assert getattr(args, option.name) == option.default, option.name


def _other_value(option) -> tuple[list, object]:
    """Command-line words for ``option`` and the value they should give, never its default."""
    choices = option.metadata.get("choices")
    if choices:
        value = next(c for c in choices if c != option.default)
        return [flag(option.name), value], value
    kind = option_type(PretrainSettings, option.name)
    if kind is bool:
        return [flag(option.name)], True
    if kind is int:
        value = (option.default or 0) + 7
    elif kind is float:
        value = (option.default or 0) + 0.25
    else:
        value = f"given-{option.name}"
    return [flag(option.name), str(value)], value


@pytest.mark.parametrize("option", OPTIONS, ids=[f.name for f in OPTIONS])
def test_every_option_given_reaches_its_setting(option):
    words, value = _other_value(option)
    run_length = [] if option.metadata.get("run_length") else ["--epochs", "1"]
    assert getattr(settings_of(*run_length, *words), option.name) == value


def test_pretrain_trains_on_the_device_it_is_given_and_by_default_on_cuda_local_rank(tmp_path, monkeypatch):
    """Was: cuda:LOCAL_RANK whenever torch saw a GPU, with no --device (CUDA_VISIBLE_DEVICES= alone kept
    a run on the CPU); the default stays."""
    from hf_elmo.training.trainer import Trainer

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # a machine with two GPUs, under torchrun
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.delenv("WORLD_SIZE", raising=False)  # one process: no process group to start
    args = build_parser().parse_args(["pretrain", "c.txt", "out", "--epochs", "1", "--device", "cpu"])
    settings = settings_from_args(args)
    assert Trainer(settings, device=args.device).device == torch.device("cpu")
    assert Trainer(settings).device == torch.device("cuda", 1)


def test_shape_options_become_config_overrides():
    settings = settings_of("--epochs", "1", "--lstm-dim", "16", "--filters", "[[1,4]]", "--no-clip")
    assert settings.config_overrides == {"lstm_dim": 16, "filters": [[1, 4]], "cell_clip": None, "proj_clip": None}


def test_bilm_implementation_choices_are_auto_and_the_config_paths():
    choices = PretrainSettings.__dataclass_fields__["bilm_implementation"].metadata["choices"]
    assert choices == ["auto", *BILM_IMPLEMENTATIONS]


def test_a_value_outside_the_choices_is_refused_by_the_settings_check_too(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\n")
    settings = PretrainSettings(train_file=str(corpus), output_dir=str(tmp_path / "m"), epochs=1, optimizer="sgd")
    with pytest.raises(ValueError, match=r"--optimizer must be one of \['adagrad', 'adam'\], got the str 'sgd'"):
        check_settings(settings)


def test_perplexity_reads_its_file_as_pretrain_reads_a_corpus():
    args = build_parser().parse_args(["perplexity", "model", "file.txt"])
    assert args.max_sentence_tokens == PretrainSettings.max_sentence_tokens
    assert args.tokens_per_batch == EVAL_TOKENS_PER_BATCH


@pytest.mark.parametrize(
    "argv",
    [
        ["model", "--json", "file.txt"],
        ["model", "--vocab", "v.txt", "--softmax-weights", "s.hdf5", "file.txt"],
        ["--json", "model", "file.txt"],
    ],
)
def test_perplexity_takes_options_between_model_and_file(argv):
    """argparse alone gives an optional positional (FILE) only what comes before the first option."""
    args = build_parser().parse_args(["perplexity", *argv])
    assert (args.model, args.file) == ("model", "file.txt")


@pytest.mark.parametrize(
    "argv, positionals",
    [
        (["embed", "--", "-in.txt", "out.h5"], {"input": "-in.txt", "output": "out.h5"}),
        (["perplexity", "--json", "--", "-model", "-file.txt"], {"model": "-model", "file": "-file.txt"}),
    ],
)
def test_arguments_after_a_double_dash_are_positional_even_when_they_start_with_a_dash(argv, positionals):
    args = build_parser().parse_args(argv)
    assert {name: vars(args)[name] for name in positionals} == positionals


def test_perplexity_with_one_path_between_options_reads_it_as_the_file():
    args = build_parser().parse_args(["perplexity", "--json", "file.txt", "--no-progress"])
    assert (args.model, args.file, args.json, args.no_progress) == ("file.txt", None, True, True)


def test_perplexity_refuses_a_max_sentence_tokens_below_one_as_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["perplexity", "model", "file.txt", "--max-sentence-tokens", "0"])
    assert stop.value.code == 2
    assert "--max-sentence-tokens: must be a positive integer, got '0'" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "2", "many"])
def test_perplexity_refuses_a_tokens_per_batch_below_three_as_a_usage_error_naming_the_option(value, capsys):
    """Was: 'tokens_per_batch must be at least 3' after the model loaded, naming a parameter, not the option."""
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["perplexity", "model", "file.txt", "--tokens-per-batch", value])
    assert stop.value.code == 2
    assert f"argument --tokens-per-batch: must be an integer >= 3, got '{value}'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, name, value",
    [
        (["pretrain", "c.txt", "out", "--epochs", "1", "--lr", "-1e-3"], "lr", -1e-3),
        (["pretrain", "c.txt", "out", "--epochs", "-.5"], "epochs", -0.5),
        (["embed", "in.txt", "out.h5", "--shard", "-1/2"], "shard", "-1/2"),
        (["perplexity", "model", "file.txt", "--device", "-1x"], "device", "-1x"),
    ],
)
def test_a_value_that_starts_with_a_dash_and_a_digit_is_the_options_value(argv, name, value):
    """Was: 'argument --lr: expected one argument' (argparse took -1e-3 for an option), not what is wrong."""
    assert getattr(build_parser().parse_args(argv), name) == value


def test_pretrain_names_filters_that_are_not_json_as_a_usage_error(capsys):
    """Was: 'argument --filters: invalid loads value', which named a function."""
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["pretrain", "c.txt", "out", "--epochs", "1", "--filters", "[[1,32]"])
    assert stop.value.code == 2
    assert """argument --filters: must be JSON, e.g. "[[1,32],[2,64]]", got '[[1,32]'""" in capsys.readouterr().err


@pytest.mark.parametrize("rank, said", [("0", 1), ("1", 0)])
def test_under_torchrun_only_rank_0_says_a_usage_error_or_a_refusal(rank, said, tmp_path, monkeypatch, capsys):
    """Every rank parses the same command line and refuses the run alike (was: the same line once a
    rank); the status is 2 on each. The run itself is one process here: torchrun's RANK alone."""
    monkeypatch.setenv("RANK", rank)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(SystemExit) as stop:
        main(["pretrain", "c.txt", "out", "--epochs", "1", "--filters", "[[1,32]"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.count("argument --filters: must be JSON") == said
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b c\n")
    assert main(["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", "--lr=-1"]) == 2
    assert capsys.readouterr().err == "elmo pretrain: error: --lr must be a finite number > 0, got -1.0\n" * said
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("variable, value", [("RANK", "abc"), ("RANK", ""), ("WORLD_SIZE", "0")])
def test_a_torchrun_variable_that_is_no_whole_number_is_refused_in_one_line_before_the_run(
    variable, value, tmp_path, monkeypatch, capsys
):
    """Was (RANK): a ValueError traceback, from the first warning of the run or at its end, after training
    (and one more while saying a refusal, whose line it hid); WORLD_SIZE=0 was one process."""
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setenv(variable, value)
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b c\n")
    assert main(["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", "--min-count", "1"]) == 2
    assert capsys.readouterr().err == (
        f"elmo pretrain: error: the environment's {variable}={value!r} is no whole number"
        f"{' >= 1' if variable == 'WORLD_SIZE' else ''}, as torchrun sets it: unset {variable}, or start the "
        "command with torchrun\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]
    with pytest.raises(SystemExit) as stop:  # a usage error is said too
        main(["pretrain", str(corpus), "out", "--epochs", "1", "--filters", "[[1,32]"])
    assert stop.value.code == 2
    assert "argument --filters: must be JSON" in capsys.readouterr().err


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    from tests.hf_elmo.training.test_pretraining import TINY_SHAPE_ARGS, write_corpus

    folder = tmp_path_factory.mktemp("lm")
    corpus = write_corpus(folder / "c.txt", n=30)
    argv = ["pretrain", str(corpus), str(folder / "lm"), *TINY_SHAPE_ARGS, "--max-tokens", "50", "--min-count", "1"]
    assert main([*argv, "--no-progress"]) == 0
    return folder / "lm"


def test_perplexity_given_the_model_folder_as_its_file_says_it_is_a_folder(tiny_lm, capsys, one_thread):
    assert main(["perplexity", str(tiny_lm), str(tiny_lm), "--no-progress"]) == 2
    assert f"{tiny_lm} is a folder, not a text file" in capsys.readouterr().err


def test_perplexity_splits_lines_at_cr_as_at_lf(tiny_lm, tmp_path, capsys, one_thread):
    results = []
    for ending in ("\n", "\r"):
        text = tmp_path / "text.txt"
        text.write_bytes(ending.join(["the cat sees a dog .", "a dog likes the ball ."]).encode() + ending.encode())
        assert main(["perplexity", str(tiny_lm), str(text), "--json", "--no-progress"]) == 0
        results.append(json.loads(capsys.readouterr().out))
    assert results[0] == results[1] and results[0]["predictions"] == 14


def test_perplexity_refuses_a_vocab_other_than_the_models_own_and_takes_a_copy_of_it(
    tiny_lm, tmp_path, capsys, one_thread
):
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    words = (tiny_lm / "vocab.txt").read_text().splitlines()
    reordered = tmp_path / "reordered.txt"
    reordered.write_text("\n".join(words[:3] + words[3:][::-1]) + "\n")  # as many words, other rows
    assert main(["perplexity", str(tiny_lm), str(text), "--vocab", str(reordered), "--no-progress"]) == 2
    assert f"--vocab {reordered} differs from {tiny_lm / 'vocab.txt'}" in capsys.readouterr().err
    copy = tmp_path / "copy.txt"
    copy.write_text((tiny_lm / "vocab.txt").read_text())
    assert main(["perplexity", str(tiny_lm), str(text), "--vocab", str(copy), "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["predictions"] == 7


def test_perplexity_names_a_vocabulary_of_another_size_than_the_softmax_and_what_to_give(
    tiny_lm, tmp_path, capsys, one_thread
):
    """Was: 'the vocabulary has 5 words but the softmax 21 rows', naming neither the file nor what to do."""
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    model = tmp_path / "lm"
    shutil.copytree(tiny_lm, model)
    rows = len((tiny_lm / "vocab.txt").read_text().splitlines())
    (model / "vocab.txt").write_text("\n".join((tiny_lm / "vocab.txt").read_text().splitlines()[:5]) + "\n")
    assert main(["perplexity", str(model), str(text), "--no-progress"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo perplexity: error: {model / 'vocab.txt'} has 5 words, but the softmax of {model} has {rows} rows, one "
        "for each word it was trained with: restore the vocab.txt it was saved with"
    ]
    (model / "vocab.txt").unlink()  # a folder without its vocab.txt: --vocab gives it
    cut = tmp_path / "cut.txt"
    cut.write_text("<S>\n</S>\n<UNK>\nthe\n")
    assert main(["perplexity", str(model), str(text), "--vocab", str(cut), "--no-progress"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"elmo perplexity: error: {cut} has 4 words, but the softmax of {model} has {rows} rows, one for each word "
        "it was trained with: give that vocabulary"
    ]


def test_perplexity_refuses_a_pipe_as_its_file_or_vocab_as_no_regular_file(tiny_lm, tmp_path, capsys, one_thread):
    """Was: 'corpus file not found: PIPE' and 'vocabulary file not found: PIPE', of paths that exist."""
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for argv, what in (([str(pipe)], "the corpus file"), ([str(text), "--vocab", str(pipe)], "the vocabulary file")):
        assert main(["perplexity", str(tiny_lm), *argv, "--no-progress"]) == 2
        assert f"{what} {pipe} is not a regular file (a pipe, stdin or a device?)" in capsys.readouterr().err


def test_the_help_of_min_count_and_vocab_size_says_what_they_keep_of_train_file(capsys):
    """Was: 'minimum count of a built vocabulary's words' and 'words of a built vocabulary': a count
    of what, and whether the special words are among them."""
    with pytest.raises(SystemExit):
        main(["pretrain", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "--min-count MIN_COUNT a word enters a vocabulary built from TRAIN_FILE if it occurs there this many times "
        "or more (default 3)" in help_text
    )
    assert (
        "--vocab-size VOCAB_SIZE at most this many words in a vocabulary built from TRAIN_FILE, <S> </S> <UNK> "
        "included (default 50000)" in help_text
    )


def test_perplexity_of_a_model_without_softmax_names_softmax_weights_and_vocab(
    word_baseline_folder, allennlp_fixture, tmp_path, capsys, one_thread
):
    """Was: '... for original files pass --softmax-weights', which then failed again for want of --vocab."""
    from hf_elmo import ElmoModel

    bilm = tmp_path / "bilm"
    ElmoModel.from_pretrained(word_baseline_folder).save_pretrained(bilm)  # the biLM alone, no softmax
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    for model, what in ((bilm, "a biLM without its LM softmax"), (allennlp_fixture, "original files")):
        assert main(["perplexity", str(model), str(text), "--no-progress"]) == 2
        assert capsys.readouterr().err == (
            f"elmo perplexity: error: {model} holds {what}: a perplexity needs the softmax and its words, a model "
            "written by elmo pretrain (with its vocab.txt), or original files with --softmax-weights SOFTMAX.hdf5 "
            "(softmax/W, softmax/b) and --vocab VOCAB.txt\n"
        )


def test_perplexity_of_a_hub_model_without_softmax_names_its_hub_id(word_baseline_folder, tmp_path):
    """Was: the snapshot folder in the Hub cache that the id resolved to, a path the user never gave."""
    import subprocess
    import sys

    from hf_elmo import ElmoModel
    from tests.hub_cache import add_repo_to_cache

    bilm = tmp_path / "bilm"
    ElmoModel.from_pretrained(word_baseline_folder).save_pretrained(bilm)  # the biLM alone, no softmax
    add_repo_to_cache(tmp_path / "hub", "org/bilm-alone", bilm)
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HOME": str(tmp_path)}
    script = "import sys; from hf_elmo.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", script, "perplexity", "org/bilm-alone", str(text), "--no-progress"]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    assert result.stderr.startswith("elmo perplexity: error: org/bilm-alone holds a biLM without its LM softmax: ")


def test_perplexity_of_original_files_without_vocab_is_refused_before_the_softmax_loads(
    allennlp_fixture, tmp_path, capsys, monkeypatch
):
    """Was: refused only once the model and its softmax had loaded (gigabytes for the released models')."""
    import hf_elmo.training.evaluation

    def load_lm(*args, **kwargs):
        raise AssertionError("loaded the model")

    monkeypatch.setattr(hf_elmo.training.evaluation, "load_lm", load_lm)
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    softmax = allennlp_fixture / "elmo_softmax_weights.hdf5"
    argv = ["perplexity", str(allennlp_fixture), str(text), "--softmax-weights", str(softmax), "--no-progress"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"elmo perplexity: error: {allennlp_fixture} holds original files: give their vocabulary with --vocab\n"
    )


def test_perplexity_of_an_lm_folder_without_its_vocab_txt_says_to_put_it_back_or_give_vocab(
    tiny_lm, tmp_path, capsys, one_thread
):
    """Was: 'the vocabulary file LM/vocab.txt: no such file', once the model had loaded, naming no --vocab."""
    lm = shutil.copytree(tiny_lm, tmp_path / "lm")
    (lm / "vocab.txt").unlink()
    text = tmp_path / "text.txt"
    text.write_text("the cat sees a dog .\n")
    assert main(["perplexity", str(lm), str(text), "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        f"elmo perplexity: error: {lm} has no vocab.txt, the words of its softmax: put back the one it was saved "
        "with, or give it with --vocab VOCAB.txt\n"
    )
    shutil.copy(tiny_lm / "vocab.txt", tmp_path / "v.txt")
    assert main(["perplexity", str(lm), str(text), "--vocab", str(tmp_path / "v.txt"), "--no-progress"]) == 0
