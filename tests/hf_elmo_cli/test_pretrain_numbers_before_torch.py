"""`elmo pretrain` refuses a number out of its bounds at once: the bounds are checked by the stdlib-only
``hf_elmo.training.options.check_numbers`` before torch is imported (was: only by ``check_settings``, after some
10 s of importing torch and transformers); ``check_settings`` checks the same bounds, with the same words, for a
``PretrainSettings`` built in Python."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hf_elmo.training.settings import PretrainSettings, check_settings

REFUSED = """
import sys
import hf_elmo_cli
print("exit:", hf_elmo_cli.main(["pretrain", "train.txt", "out", "--epochs", "1", *sys.argv[1:]]))
print("heavy imports:", sorted(m for m in ("torch", "transformers", "hf_elmo") if m in sys.modules))
"""

CASES = [
    (["--seed", "-3"], dict(seed=-3), "--seed must be an integer >= 0 and <= 4294967295, got -3"),
    (["--dropout", "1"], dict(dropout=1.0), "--dropout must be a finite number >= 0 and < 1, got 1.0"),
    (["--lr", "nan"], dict(lr=float("nan")), "--lr must be a finite number > 0, got nan"),
    (["--max-steps", "0"], dict(max_steps=0), "--max-steps must be an integer >= 1, got 0"),
    (["--tokens-per-batch", "2"], dict(tokens_per_batch=2), "--tokens-per-batch must be an integer >= 3, got 2"),
]


@pytest.mark.parametrize(("argv", "fields", "said"), CASES)
def test_a_number_out_of_bounds_is_refused_before_torch_is_imported(argv, fields, said, tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", REFUSED, *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert result.stdout.splitlines() == ["exit: 2", "heavy imports: []"], result.stderr
    assert result.stderr == f"elmo pretrain: error: {said}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "fields", "said"), CASES)
def test_check_settings_refuses_the_same_numbers_in_the_same_words(argv, fields, said, tmp_path):
    corpus = tmp_path / "train.txt"
    corpus.write_text("a b c\n", encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        check_settings(PretrainSettings(str(corpus), str(tmp_path / "out"), epochs=1, **fields))
    assert str(refused.value) == said


def test_an_epochs_value_out_of_bounds_is_refused_before_torch_is_imported(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", REFUSED.replace('"--epochs", "1", ', ""), "--epochs", "-1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.stdout.splitlines() == ["exit: 2", "heavy imports: []"], result.stderr
    assert result.stderr == "elmo pretrain: error: --epochs must be a finite number > 0, got -1.0\n"
