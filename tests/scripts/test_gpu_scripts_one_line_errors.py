"""``scripts/gpu/gpu_run.py`` and ``pack_spacy_data.py`` say their failures as every script does (``_args.run_script``,
``SuggestingParser``; both import ``hf_elmo_cli``'s argument helpers, which import the standard library only, on the
GPU host too): a stdout that cannot be written (``> /dev/full``) is one line naming it, exit code 1 (was: Python's two
lines at exit, exit 120), and a usage error is one line, a mistyped sub-command named with the closest one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, load_script

FULL = f"stdout: {os.strerror(28)}"


def _into_full_stdout(*command: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [sys.executable, *command], stdout=full, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO, timeout=300
        )


@pytest.mark.parametrize("script", ["gpu_run.py", "pack_spacy_data.py"])
def test_help_into_a_full_stdout_is_one_line_naming_it(script):
    result = _into_full_stdout(str(REPO / "scripts" / "gpu" / script), "--help")
    assert (result.returncode, result.stderr) == (1, f"{script}: error: {FULL}\n")


def test_a_gpu_run_step_into_a_full_stdout_is_one_line_naming_it(tmp_path):
    result = _into_full_stdout(str(REPO / "scripts/gpu/gpu_run.py"), "stop", "--work", str(tmp_path))  # no run is going
    assert (result.returncode, result.stderr) == (1, f"gpu_run.py: error: {FULL}\n")


@pytest.mark.parametrize(
    ("script", "words"), [("gpu_run", ["stop", "a\nb"]), ("pack_spacy_data", ["--overwrite", "a\nb"])]
)
def test_an_unrecognized_word_with_a_line_break_is_one_line(script, words, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts" / "gpu"))  # where pack_spacy_data imports gpu_run from
    module = load_script(f"scripts/gpu/{script}.py")
    with pytest.raises(SystemExit) as exit:
        module.main(words)
    assert exit.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"{script}.py: error: unrecognized arguments: a\\nb"


def test_a_mistyped_step_names_the_closest(capsys):
    with pytest.raises(SystemExit):
        load_script("scripts/gpu/gpu_run.py").main(["stahs"])
    assert capsys.readouterr().err.splitlines()[-1].endswith("(did you mean stash?)")
