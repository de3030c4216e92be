"""scripts/prepare_pretrain_en.py killed (``kill -9``) while it moves its files into an output folder that holds an
earlier run's leaves files of one run only, never the splits of one beside those of the other: the earlier outputs
are moved out first (was: a new ``train.txt`` beside the earlier ``valid.txt``, ``test.txt`` and ``prepare.json`` of
other settings, held-out text that may overlap the training text, silently)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.scripts.test_prepare_pretrain_en import write_shard
from tests.scripts.test_prepare_pretrain_en_output import InlinePool, prepare

# prepare_pretrain_en.py (argv[2:]) that SIGKILLs itself once it has moved the file argv[1] of its own into place.
KILLED_WHILE_MOVING_IN = """
import os, signal, sys
from tests.conftest import load_script
from tests.scripts.test_prepare_pretrain_en_output import InlinePool

replace = os.replace

def replace_then_killed(source, target):
    replace(source, target)
    if os.path.basename(os.path.dirname(source)).startswith(".prepare-") and os.path.basename(source) == sys.argv[1]:
        os.kill(os.getpid(), signal.SIGKILL)

os.replace = replace_then_killed
script = load_script("scripts/prepare_pretrain_en.py")
script.Pool = InlinePool
script.main(sys.argv[2:])
"""

EARLIER = ["--block", "1", "--processes", "1"]
LATER = ["--block", "2", "--train-fraction", "0.5", "--processes", "1"]
NAMES = ("train.txt", "valid.txt", "test.txt", "prepare.json")


def outputs(folder):
    return {name: (folder / name).read_bytes() for name in NAMES if (folder / name).exists()}


@pytest.mark.parametrize("killed_after", ["train.txt", "test.txt"])
def test_a_run_killed_while_moving_its_files_in_leaves_no_mix_of_two_runs(killed_after, tmp_path, monkeypatch):
    monkeypatch.setattr(prepare, "Pool", InlinePool)
    raw = tmp_path / "raw"
    write_shard(raw, paragraphs=250)
    prepare.main([str(raw), str(tmp_path / "earlier"), *EARLIER])
    prepare.main([str(raw), str(tmp_path / "later"), *LATER])
    earlier, later = outputs(tmp_path / "earlier"), outputs(tmp_path / "later")
    assert all(earlier[name] != later[name] for name in ("valid.txt", "prepare.json"))  # two runs told apart
    out = tmp_path / "tok"
    prepare.main([str(raw), str(out), *EARLIER])
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_MOVING_IN, killed_after, str(raw), str(out), *LATER], cwd=REPO, check=False
    )
    assert killed.returncode == -9
    left = outputs(out)
    assert killed_after in left and left[killed_after] == later[killed_after]  # the kill came while moving in
    assert all(left[name] == later[name] for name in left)  # none of the earlier run's beside it
    prepare.main([str(raw), str(out), *LATER])  # the next run removes the killed one's folder
    assert outputs(out) == later
    assert sorted(path.name for path in out.iterdir()) == sorted(NAMES)


def test_an_error_while_moving_in_puts_the_earlier_outputs_back(tmp_path, monkeypatch):
    monkeypatch.setattr(prepare, "Pool", InlinePool)
    raw = tmp_path / "raw"
    write_shard(raw, paragraphs=250)
    out = tmp_path / "tok"
    prepare.main([str(raw), str(out), *EARLIER])
    earlier = outputs(out)
    replace = prepare.os.replace

    def fails_on_the_summary(source, target):
        if str(source).endswith("prepare.json") and ".prepare-" in str(source) and "replaced" not in str(source):
            raise OSError("disk gone")
        replace(source, target)

    monkeypatch.setattr(prepare.os, "replace", fails_on_the_summary)
    with pytest.raises(OSError, match="disk gone"):
        prepare.main([str(raw), str(out), *LATER])
    monkeypatch.undo()
    assert outputs(out) == earlier
    assert sorted(path.name for path in out.iterdir()) == sorted(NAMES)
