"""An empty path or model name (an unset shell variable: ``--model "$MODEL"``) is a usage error naming the argument
(``_args.non_empty``). Was: ``--model ''`` and ``demo --text ''`` ran the shipped model and the bundled text instead,
unannounced, and an empty path was read as the current folder (``the input . is a folder``, ``PosixPath('.') has an
empty name``, ``the output folder out lies inside the input /cwd``). An empty output folder is the library's
refusal, as before (``test_output_folder_empty``)."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["perplexity", "test.txt", "--model", ""], "--model"),
        (["perplexity", "model", ""], "FILE"),
        (["perplexity", "test.txt", "--vocab", ""], "--vocab"),
        (["perplexity", "test.txt", "--softmax-weights", ""], "--softmax-weights"),
        (["export", "", "served"], "MODEL"),
        (["export", "served", "--model", ""], "--model"),
        (["embed", "", "out.hdf5"], "INPUT"),
        (["embed", "in.txt", ""], "OUTPUT"),
        (["embed", "in.txt", "out.hdf5", "--model", ""], "--model"),
        (["demo", "--text", ""], "--text"),
        (["demo", "--model", ""], "--model"),
        (["convert", "", "w.hdf5", "out"], "OPTIONS"),
        (["convert", "options.json", "", "out"], "WEIGHTS"),
        (["pretrain", "", "out", "--epochs", "1"], "TRAIN_FILE"),
        (["pretrain", "train.txt", "out", "--epochs", "1", "--valid-file", ""], "--valid-file"),
        (["pretrain", "train.txt", "out", "--epochs", "1", "--vocab", ""], "--vocab"),
        (["pretrain", "train.txt", "out", "--epochs", "1", "--checkpoint-dir", ""], "--checkpoint-dir"),
        (["pretrain", "train.txt", "out", "--epochs", "1", "--init-model", ""], "--init-model"),
    ],
)
def test_an_empty_path_or_model_is_a_usage_error_naming_it(argv, argument, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # nothing is read or written: the refusal comes first
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert (
        err.splitlines()[-1] == f"elmo {argv[0]}: error: argument {argument}: must not be empty: give a path or a name"
    )
    assert list(tmp_path.iterdir()) == []
