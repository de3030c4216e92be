"""A mistyped option closest to one the command hides names the option that one stands for: ``--batchsize`` (close to
``--batch-size``, refused in favour of ``--tokens-per-batch``) and ``--batch-tokns`` (close to ``--batch-tokens``,
elmo embed's old name of it) say ``(did you mean --tokens-per-batch?)`` (was: ``--batch-size?``, which the command
then refused, or the old name, which warns); a close visible option is named as before."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["embed", "in.txt", "out.hdf5", "--batchsize", "32"], "--batchsize 32 (did you mean --tokens-per-batch?)"),
        (["perplexity", "in.txt", "--batch_size=8"], "--batch_size=8 (did you mean --tokens-per-batch?)"),
        (
            ["pretrain", "t.txt", "out", "--epochs", "1", "--batchsize", "8"],
            "--batchsize 8 (did you mean --tokens-per-batch?)",
        ),
        (["embed", "in.txt", "out.hdf5", "--batch-tokns", "9"], "--batch-tokns 9 (did you mean --tokens-per-batch?)"),
        (
            ["embed", "in.txt", "out.hdf5", "--tokens-per-bach", "9"],
            "--tokens-per-bach 9 (did you mean --tokens-per-batch?)",
        ),
        (["embed", "in.txt", "out.hdf5", "--modle", "m"], "--modle m (did you mean --model?)"),
    ],
)
def test_a_mistyped_option_names_the_option_it_means(argv, said, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"elmo {argv[0]}: error: unrecognized arguments: {said}"
