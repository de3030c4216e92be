"""`elmo pretrain` refuses a model size beyond ElmoConfig's bounds in one line naming the option the user
gave, before anything is written (was: the config field, 'ElmoConfig.lstm_dim must be ...', or for an
--init-model LM, '--init-model M cannot be loaded (ElmoConfigError: ...)', blaming a sound model)."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main
from tests.hf_elmo.training.test_pretrain_safety import error_of, files_under
from tests.hf_elmo.training.test_pretraining import write_corpus

pytestmark = pytest.mark.usefixtures("one_thread")

SMALL = ["--preset", "cpu", "--lstm-dim", "16", "--projection-dim", "8", "--tokens-per-batch", "128"]


@pytest.mark.parametrize(
    "option, message",
    [
        (["--projection-dim", "100000"], "--projection-dim must be in 1..8192, got 100000"),
        (["--n-highway", "17"], "--n-highway must be in 0..16, got 17"),
        (["--filters", "[[1,9000]]"], "--filters[0] n_channels must be in 1..8192, got 9000"),
        (["--num-sampled", "2000000"], "--num-sampled must be an integer >= 1 and <= 1000000, got 2000000"),
    ],
    ids=["projection-dim", "n-highway", "filters", "num-sampled"],
)
def test_a_model_size_beyond_the_configs_bounds_is_refused_naming_its_option(option, message, tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    before = files_under(tmp_path)
    argv = ["pretrain", str(corpus), str(tmp_path / "out"), *SMALL, "--epochs", "1", "--no-progress"]
    assert main([*argv, *option]) == 2
    assert error_of(capsys) == f"elmo pretrain: error: {message}"
    assert files_under(tmp_path) == before


def test_num_sampled_beyond_the_bound_is_refused_as_the_option_not_as_the_init_model(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    argv = ["pretrain", str(corpus), str(tmp_path / "lm"), *SMALL, "--max-tokens", "50", "--min-count", "1"]
    assert main([*argv, "--filters", "[[1,4],[2,8]]", "--no-progress"]) == 0
    before = files_under(tmp_path)
    capsys.readouterr()
    argv = ["pretrain", str(corpus), str(tmp_path / "more"), "--init-model", str(tmp_path / "lm"), "--epochs", "1"]
    assert main([*argv, "--num-sampled", "1000001", "--no-progress"]) == 2
    assert error_of(capsys) == "elmo pretrain: error: --num-sampled must be an integer >= 1 and <= 1000000, got 1000001"
    assert files_under(tmp_path) == before
