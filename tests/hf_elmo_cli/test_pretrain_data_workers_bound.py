"""`elmo pretrain --data-workers` beyond MAX_DATA_WORKERS (as --threads beyond MAX_THREADS) is refused in one
usage error before anything is written (was: taken, and as many processes started)."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main
from hf_elmo.training.settings import MAX_DATA_WORKERS, PretrainSettings, check_settings
from tests.hf_elmo.training.test_pretrain_safety import error_of, files_under
from tests.hf_elmo.training.test_pretraining import write_corpus


def test_data_workers_beyond_the_bound_are_refused_naming_it(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    before = files_under(tmp_path)
    argv = ["pretrain", str(corpus), str(tmp_path / "out"), "--epochs", "1", "--data-workers", "5000"]
    assert main([*argv, "--no-progress"]) == 2
    assert error_of(capsys) == (
        f"elmo pretrain: error: --data-workers must be an integer >= 0 and <= {MAX_DATA_WORKERS}, got 5000"
    )
    assert files_under(tmp_path) == before


@pytest.mark.parametrize("workers", [0, MAX_DATA_WORKERS])
def test_data_workers_within_the_bound_pass(workers, tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    check_settings(PretrainSettings(corpus, tmp_path / "out", epochs=1, data_workers=workers))


def test_check_settings_refuses_data_workers_beyond_the_bound(tmp_path):
    corpus = write_corpus(tmp_path / "c.txt", n=30)
    settings = PretrainSettings(corpus, tmp_path / "out", epochs=1, data_workers=MAX_DATA_WORKERS + 1)
    with pytest.raises(ValueError, match=f"^--data-workers must be an integer >= 0 and <= {MAX_DATA_WORKERS}, got"):
        check_settings(settings)
