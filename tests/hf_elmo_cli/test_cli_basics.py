"""The ``elmo`` command line: fast help, --version, the shipped model as default, and one clear
line for a model that cannot be found or read, whatever the command."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from hf_elmo.cli import main as elmo_main
from hf_elmo.pretrained import DEFAULT_MODEL, DEMO_SENTENCES
from hf_elmo_cli import COMMANDS, build_parser
from hf_elmo_cli.commands._args import CommandParser
from tests.numpy_elmo import small_options, write_random_original

ELMO = Path(sys.executable).parent / "elmo"

HELP_IMPORTS = """
import sys
sys.argv = ["elmo", *sys.argv[1:], "--help"]
import hf_elmo_cli
try:
    hf_elmo_cli.main()
except SystemExit:
    pass
print("heavy imports:", sorted(m for m in ("torch", "transformers", "hf_elmo", "spacy") if m in sys.modules))
"""


def test_help_imports_neither_torch_nor_transformers():
    result = subprocess.run([sys.executable, "-c", HELP_IMPORTS], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert all(f"\n    {command}" in result.stdout for command in COMMANDS)  # each with what it does
    assert result.stdout.strip().splitlines()[-1] == "heavy imports: []"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_commands_help_imports_neither_torch_nor_transformers(command):
    """Was: elmo perplexity, export and pretrain --help imported torch and transformers for their options' defaults
    and choices (seconds), which hf_elmo.training.options and hf_elmo.export_formats now hold without torch."""
    result = subprocess.run([sys.executable, "-c", HELP_IMPORTS, command], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: elmo {command} ")
    assert result.stdout.strip().splitlines()[-1] == "heavy imports: []"


def test_version_names_the_distribution():
    from importlib.metadata import version

    result = subprocess.run([str(ELMO), "--version"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == f"elmo (hf-elmo) {version('hf-elmo')}"


@pytest.fixture
def text(tmp_path) -> Path:
    path = tmp_path / "text.txt"
    path.write_text("\n".join(DEMO_SENTENCES.read_text(encoding="utf-8").splitlines()[:4]) + "\n")
    return path


def test_perplexity_defaults_to_the_shipped_model(text, capsys):
    assert elmo_main(["perplexity", str(text), "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert elmo_main(["perplexity", str(DEFAULT_MODEL), str(text), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == default
    assert elmo_main(["perplexity", "hf-elmo:elmo-2x1024-en", str(text), "--json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == default and err == ""


def test_perplexity_runs_on_the_device_it_is_given(text, capsys):
    assert elmo_main(["perplexity", str(text), "--json", "--no-progress"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert elmo_main(["perplexity", str(text), "--json", "--no-progress", "--device", "cpu"]) == 0
    assert json.loads(capsys.readouterr().out) == default
    if torch.cuda.is_available():
        assert elmo_main(["perplexity", str(text), "--json", "--no-progress", "--device", "cuda"]) == 0
        on_gpu = json.loads(capsys.readouterr().out)
        assert on_gpu["predictions"] == default["predictions"]
        assert on_gpu["average"] == pytest.approx(default["average"], rel=1e-3)  # TF32 convolutions allowed
    else:
        assert elmo_main(["perplexity", str(text), "--device", "cuda"]) == 2
        assert "no CUDA device is available here" in capsys.readouterr().err


def test_perplexity_given_a_model_folder_alone_asks_for_the_file(capsys):
    assert elmo_main(["perplexity", str(DEFAULT_MODEL)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert f"{DEFAULT_MODEL} is a folder: give the text FILE to score too (elmo perplexity FILE --model" in err[0]


def test_perplexity_takes_its_model_as_model_as_embed_and_demo_do(text, capsys):
    """Was: MODEL FILE alone, so 'elmo perplexity FILE --model M' (embed's and demo's way) was an
    unrecognized argument; the first of two arguments is still the model."""
    assert elmo_main(["perplexity", str(DEFAULT_MODEL), str(text), "--json", "--no-progress"]) == 0
    positional = json.loads(capsys.readouterr().out)
    assert elmo_main(["perplexity", str(text), "--model", str(DEFAULT_MODEL), "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out) == positional
    assert elmo_main(["perplexity", str(DEFAULT_MODEL), str(text), "--model", "hf-elmo:elmo-2x1024-en"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"elmo perplexity: error: the model is given twice, as the argument {DEFAULT_MODEL} and as --model "
        "hf-elmo:elmo-2x1024-en: give it once"
    ]


def test_export_takes_its_model_as_model_too(tmp_path, capsys):
    """Was: MODEL OUT alone, so 'elmo export --model M OUT' (embed's and demo's way) was an
    unrecognized argument."""
    missing, out = str(tmp_path / "my-elmo"), tmp_path / "served"
    assert elmo_main(["export", str(out), "--model", missing]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such local file or folder" in err[0] and missing in err[0]
    assert elmo_main(["export", str(out)]) == 2
    expected = (
        "elmo export: error: give the model to export: elmo export MODEL OUTPUT_DIR (or elmo export OUTPUT_DIR --model "
        "MODEL)"
    )
    assert capsys.readouterr().err.strip().splitlines() == [expected]
    assert elmo_main(["export", missing, str(out), "--model", missing]) == 2
    assert "the model is given twice" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv", [["embed", "in.txt", "out.hdf5"], ["perplexity", "in.txt"], ["pretrain", "in.txt", "out", "--epochs", "1"]]
)
def test_every_command_that_batches_takes_the_batch_size_as_tokens_per_batch(argv):
    """One name for the padded tokens per batch (was: --batch-tokens in elmo embed alone)."""
    assert build_parser().parse_args([*argv, "--tokens-per-batch", "7"]).tokens_per_batch == 7


def test_embed_takes_batch_tokens_as_the_old_name_of_tokens_per_batch():
    assert build_parser().parse_args(["embed", "in.txt", "out.hdf5", "--batch-tokens", "7"]).tokens_per_batch == 7


@pytest.mark.parametrize(
    "argv, instead",
    [
        (["--top"], "use --layers top"),
        (["--all"], r"all layers are the default \(--layers all\)"),
        (["--cuda-device", "-1"], r"use --device cuda:N \(or cpu\)"),
        (["--options-file", "o.json", "--weight-file", "w.hdf5"], "use --model FOLDER, the folder of the options"),
        (["--weight-file", "w.hdf5"], "use --model FOLDER"),
        (["--forget-sentences"], "not taken here: sentence_to_index is always written"),
        (["--use-sentence-keys"], "not taken here: datasets are named by line index"),
    ],
)
def test_embed_refuses_the_options_of_allennlps_elmo_command_naming_its_own(argv, instead, capsys):
    """`allennlp elmo IN OUT --top --batch-size 32 --options-file O --weight-file W`, as AllenNLP's
    users have it in their scripts. Was: "elmo: error: unrecognized arguments: --batch-size 32"."""
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["embed", "in.txt", "out.hdf5", *argv])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.fullmatch(rf"elmo embed: error: {argv[0]} is allennlp elmo's option: {instead}.*", last)


def command_parsers() -> dict[str, CommandParser]:
    """Every sub-command's parser."""
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(subparsers.choices)


def test_every_option_with_a_default_states_it_in_its_help():
    """Was: --seed, --warmup-steps and --checkpoint-every-steps (default 0, which equals False, read as
    no default to state), embed's --layers and --dtype, and --threads in every command said nothing."""
    unstated = [
        f"{command} {action.option_strings[0]}"
        for command, parser in command_parsers().items()
        for action in parser._actions
        if action.option_strings
        and action.help
        and (action.dest == "threads" or action.default not in (None, argparse.SUPPRESS, ""))
        and action.default is not False
        and "default" not in action.help
    ]
    assert unstated == []


def test_an_option_of_several_commands_has_one_metavar():
    """One spelling of what an option takes, whichever command it is given to (was: perplexity's
    --vocab VOCAB beside pretrain's --vocab VOCAB_FILE)."""
    metavars: dict[str, set[str]] = {}
    for parser in command_parsers().values():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:  # hidden: another tool's option that embed refuses (--top)
                continue
            for option in action.option_strings:
                metavars.setdefault(option, set()).add(str(action.metavar or action.dest.upper()))
    assert {option: names for option, names in metavars.items() if len(names) > 1} == {}


def test_elmo_takes_an_abbreviation_of_its_own_option_before_the_command(capsys):
    with pytest.raises(SystemExit) as exit:
        elmo_main(["--vers"])
    assert exit.value.code == 0 and capsys.readouterr().out.startswith("elmo (hf-elmo) ")


def test_elmo_alone_prints_what_each_command_does(capsys):
    """Was: 'elmo: error: the following arguments are required: command' under a usage line of names."""
    assert elmo_main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: elmo [-h] [--version] COMMAND ...") and "elmo COMMAND --help" in err
    assert "show contextual vectors" in err and "embed every line of a text file" in err


def test_every_command_says_what_it_does_under_its_usage():
    """`elmo COMMAND --help` explains the command, not its arguments alone (was: convert's help was its
    usage and arguments, with nothing of what the folder is, that converting is optional, or that a
    failed conversion leaves no folder)."""
    assert [command for command, parser in command_parsers().items() if not parser.description] == []


def test_every_positional_argument_is_named_in_capitals_and_a_folder_to_write_is_output_dir():
    """As the help texts and descriptions name them (was: 'usage: elmo embed ... input output' beside
    'Embeds INPUT ...'), and one name for the folder convert, export and pretrain write (was: out_dir,
    out and output_dir, named OUT_DIR, OUT and OUTPUT_DIR in their help)."""
    names = {
        command: [action.metavar for action in parser._actions if not action.option_strings]
        for command, parser in command_parsers().items()
    }
    assert names == {
        "convert": ["OPTIONS", "WEIGHTS", "OUTPUT_DIR"],
        "pretrain": ["TRAIN_FILE", "OUTPUT_DIR"],
        "perplexity": ["MODEL", "FILE"],
        "demo": [],
        "embed": ["INPUT", "OUTPUT"],
        "export": ["MODEL", "OUTPUT_DIR"],
    }


@pytest.mark.parametrize(
    "argv, expected",
    [
        (
            ["embed", "in.txt", "out.hdf5", "--modle", "m"],
            "elmo embed: error: unrecognized arguments: --modle m (did you mean --model?)",
        ),
        (
            ["pretrain", "in.txt", "out", "--epochs", "1", "--sed=3"],
            "elmo pretrain: error: unrecognized arguments: --sed=3 (did you mean --seed?)",
        ),
        (["embd", "in.txt", "out.hdf5"], "(did you mean embed?)"),
        (["--verison"], "elmo: error: unrecognized arguments: --verison (did you mean --version?)"),
        (
            ["--threads", "2", "embed", "in.txt", "out.hdf5"],
            "elmo: error: unrecognized arguments: --threads (a command's options go after it: elmo COMMAND OPTIONS)",
        ),
        (["embed", "in.txt", "out.hdf5", "--layers", "avg"], "(did you mean average?)"),
    ],
)
def test_a_mistyped_option_or_command_is_refused_naming_the_closest_one(argv, expected, capsys):
    """Was: 'elmo: error: unrecognized arguments: --modle m' under elmo's usage, not the command's, and
    an invalid choice listed the choices alone (Python's argparse suggests none before 3.14)."""
    with pytest.raises(SystemExit) as exit:
        elmo_main(argv)
    assert exit.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith(expected)
    assert err[0].startswith("usage: elmo " + ("" if argv[0] in ("embd", "--verison", "--threads") else argv[0]))


def test_pretrain_names_a_missing_training_file_as_the_argument_it_is(tmp_path, capsys):
    assert elmo_main(["pretrain", str(tmp_path / "nope.txt"), str(tmp_path / "out"), "--epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert f"the training file {tmp_path / 'nope.txt'}: no such file" in err and "--train-file" not in err
    assert not (tmp_path / "out").exists()


@pytest.fixture
def no_weights(tmp_path) -> Path:
    folder = tmp_path / "no-weights"
    folder.mkdir()
    (folder / "config.json").write_bytes((DEFAULT_MODEL / "config.json").read_bytes())
    return folder


@pytest.fixture
def corrupt(tmp_path) -> Path:
    folder = tmp_path / "corrupt"
    folder.mkdir()
    for name in ("config.json", "vocab.txt"):
        (folder / name).write_bytes((DEFAULT_MODEL / name).read_bytes())
    (folder / "model.safetensors").write_bytes((DEFAULT_MODEL / "model.safetensors").read_bytes()[:5000])
    return folder


@pytest.fixture
def list_config(tmp_path) -> Path:
    folder = tmp_path / "list-config"
    folder.mkdir()
    (folder / "config.json").write_text("[1, 2, 3]")
    (folder / "model.safetensors").symlink_to(DEFAULT_MODEL / "model.safetensors")
    return folder


@pytest.fixture
def bert_config(tmp_path) -> Path:
    folder = tmp_path / "bert-config"
    folder.mkdir()
    config = json.loads((DEFAULT_MODEL / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "bert"}))
    (folder / "model.safetensors").symlink_to(DEFAULT_MODEL / "model.safetensors")
    return folder


def _commands(model: str, text: Path, out: Path):
    return {
        "embed": ["embed", str(text), str(out / "x.hdf5"), "--model", model, "--no-progress"],
        "perplexity": ["perplexity", model, str(text)],
        "demo": ["demo", "--model", model],
        "pretrain": ["pretrain", str(text), str(out / "lm"), "--init-model", model, "--epochs", "1", "--no-progress"],
    }


@pytest.mark.parametrize("command", ["embed", "perplexity", "demo", "pretrain"])
@pytest.mark.parametrize("case", ["missing", "no_weights", "corrupt", "list_config", "bert_config"])
def test_every_command_names_a_bad_model_in_one_line(command, case, request, text, tmp_path, capsys):
    model = str(tmp_path / "my-elmo") + "/" if case == "missing" else str(request.getfixturevalue(case))
    out = tmp_path / "out"
    out.mkdir()
    assert elmo_main(_commands(model, text, out)[command]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    expected = {
        "missing": "no such local file or folder",
        "no_weights": "has a config.json but no model.safetensors",
        "corrupt": "model.safetensors is not a readable safetensors file",
        "list_config": "config.json: expected a JSON object of config fields, got the list [1, 2, 3]",  # was a traceback
        "bert_config": "config.json: field model_type must be 'elmo', got the str 'bert'",  # was a warning, then the model
    }[case]
    assert err.startswith(f"elmo {command}: error: ") and expected in err and model.rstrip("/") in err
    assert list(out.iterdir()) == []  # nothing written (pretrain: no checkpoint folder)


@pytest.mark.parametrize("command", ["embed", "perplexity", "demo", "export", "pretrain"])
def test_every_command_that_runs_torch_takes_threads(command, text, tmp_path, monkeypatch, capsys):
    """Was: --threads in embed, perplexity and pretrain alone; demo and export refused it."""
    threads: list[int] = []
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    missing, out = str(tmp_path / "my-elmo"), tmp_path / "out"
    out.mkdir()
    argv = {
        **_commands(missing, text, out),
        "export": ["export", str(out / "served"), "--model", missing],
    }[command]
    assert elmo_main([*argv, "--threads", "3"]) == 2  # the missing model, after the threads are set
    assert "no such local file or folder" in capsys.readouterr().err
    assert threads == [3]


@pytest.mark.parametrize("command", ["embed", "perplexity", "demo", "pretrain"])
def test_every_command_that_runs_the_model_where_asked_takes_device_as_embed_does(command, text, tmp_path, capsys):
    """Was: --device in embed and perplexity alone; demo and pretrain refused it as an unrecognized
    argument, and pretrain trained on a GPU whenever there was one."""
    out = tmp_path / "out"
    out.mkdir()
    argv = _commands(str(tmp_path / "my-elmo"), text, out)[command]
    assert elmo_main([*argv, "--device", "nosuch"]) == 2  # read by resolve_device, before the model loads
    assert capsys.readouterr().err.splitlines() == [
        f"elmo {command}: error: unknown device 'nosuch'; use cpu, cuda or cuda:N"
    ]
    assert list(out.iterdir()) == []


def test_device_has_one_help_in_every_command_that_takes_it_but_its_default():
    """Was: perplexity's without embed's word on torchrun; export, which traces on the CPU, takes none."""
    helps = {
        command: action.help
        for command, parser in command_parsers().items()
        for action in parser._actions
        if "--device" in action.option_strings
    }
    assert sorted(helps) == ["demo", "embed", "perplexity", "pretrain"]
    assert len({re.sub(r"\(default: [^)]*\)", "", str(help)) for help in helps.values()}) == 1
    assert "(default: cpu)" in str(helps["demo"]) and "(default: cuda when available)" in str(helps["pretrain"])


def test_embed_reads_a_zip_of_the_original_files(text, tmp_path, capsys):
    write_random_original(tmp_path, small_options(), seed=2)
    archive = tmp_path / "model.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.write(tmp_path / "options.json", "elmo/options.json")
        handle.write(tmp_path / "weights.hdf5", "elmo/weights.hdf5")
    assert elmo_main(["embed", str(text), str(tmp_path / "z.hdf5"), "--model", str(archive), "--no-progress"]) == 0
    assert elmo_main(["embed", str(text), str(tmp_path / "f.hdf5"), "--model", str(tmp_path), "--no-progress"]) == 0
    import h5py

    with h5py.File(tmp_path / "z.hdf5") as zipped, h5py.File(tmp_path / "f.hdf5") as folder:
        assert len(zipped) == len(folder) == 5  # 4 lines + sentence_to_index
        for key in ("0", "3"):
            assert (zipped[key][...] == folder[key][...]).all()


def test_the_models_the_commands_load_compute_in_float32():
    """The shipped model is stored in float16; embed and demo (load_bilm) and perplexity (load_lm)
    run it in float32."""
    import torch

    from hf_elmo.loading import load_bilm
    from hf_elmo.training.evaluation import load_lm

    assert load_bilm("hf-elmo:elmo-2x1024-en")[0].dtype == torch.float32
    assert load_lm("hf-elmo:elmo-2x1024-en").dtype == torch.float32


def test_embed_with_the_default_model_prints_nothing_on_stderr(text, tmp_path):
    result = subprocess.run(
        [str(ELMO), "embed", str(text), str(tmp_path / "out.hdf5"), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""  # no "Loading weights" bar, no load report
    assert result.stdout.startswith(f"wrote {tmp_path / 'out.hdf5'}: 4 lines")


@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_in_any_command_is_one_line_and_status_130(command, tmp_path, monkeypatch, capsys):
    import importlib

    module = importlib.import_module(f"hf_elmo_cli.commands.{command}")

    def interrupted(args):
        raise KeyboardInterrupt

    run = "run_command" if command == "pretrain" else "run"
    monkeypatch.setattr(module, run, interrupted)
    monkeypatch.chdir(tmp_path)
    argv = {
        "convert": ["convert", "o.json", "w.hdf5", "out"],
        "pretrain": ["pretrain", "t.txt", "out", "--epochs", "1"],
        "perplexity": ["perplexity", "model", "t.txt"],
        "demo": ["demo"],
        "embed": ["embed", "t.txt", "out.hdf5"],
        "export": ["export", "model", "out"],
    }[command]
    assert elmo_main(argv) == 130
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"elmo {command}: interrupted"), err


def test_embed_and_export_options_offer_the_librarys_defaults_and_choices():
    """The parser is built without importing hf_elmo (``elmo --help`` answers at once): embed's and export's
    defaults and choices are read from the stdlib-only modules that ``hf_elmo.embed`` and ``hf_elmo.export`` take
    them from (``embed_options``, ``export_formats``)."""
    from hf_elmo.embed import DEFAULT_BATCH_TOKENS, DEFAULT_CHUNK_LINES, LAYERS
    from hf_elmo.export import DTYPES

    parsers = command_parsers()
    shown = (action for action in parsers["embed"]._actions if action.help != argparse.SUPPRESS)  # no old name
    embed = {action.dest: action for action in shown}
    assert (embed["tokens_per_batch"].default, embed["chunk_lines"].default) == (
        DEFAULT_BATCH_TOKENS,
        DEFAULT_CHUNK_LINES,
    )
    assert tuple(embed["layers"].choices) == LAYERS
    assert f"(default {DEFAULT_BATCH_TOKENS})" in parsers["embed"].format_help()
    export = {action.dest: action for action in parsers["export"]._actions}
    assert list(export["format"].choices) == list(DTYPES)
    assert list(export["dtype"].choices) == list(dict.fromkeys(d for dtypes in DTYPES.values() for d in dtypes))


@pytest.mark.parametrize(
    "command",
    [
        ["embed", "{text}", "{out}/o.hdf5", "--model", "{model}"],
        ["demo", "--model", "{model}"],
        ["export", "{model}", "{out}/x"],
    ],
    ids=["embed", "demo", "export"],
)
def test_a_char_cnn_command_given_a_word_baseline_names_it_and_says_it_reads_word_ids(
    command, word_baseline_folder, tmp_path, capsys
):
    """Was: 'this biLM embeds word ids ...: call encode(word_ids, lengths) ...' from the model's
    forward, naming no folder, after elmo embed had begun its output (OUTPUT.partial left behind)."""
    text = tmp_path / "s.txt"
    text.write_text("the cat sees a dog .\n")
    out = tmp_path / "out"
    out.mkdir()
    assert elmo_main([part.format(text=text, out=out, model=word_baseline_folder) for part in command]) == 2
    assert capsys.readouterr().err == (
        f"elmo {command[0]}: error: {word_baseline_folder}: this biLM embeds word ids (token_embedding='word', the "
        f"pretraining baseline), not char ids; elmo {command[0]} needs a char-CNN biLM\n"
    )
    assert not any(out.iterdir())
