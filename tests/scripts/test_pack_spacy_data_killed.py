"""scripts/gpu/pack_spacy_data.py --overwrite killed (kill -9) as it removes what it replaces leaves at --out the
earlier pack or the new one, whole (was: it removed the earlier pack before renaming the new one in, and a kill
meanwhile left it half-removed), and the next run removes what the killed one left beside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, load_script

KILLED_REMOVING = """
import os, shutil, signal, sys
from pathlib import Path
from tests.conftest import load_script

def removes_a_file_then_killed(path, *args, **kwargs):
    next(p for p in sorted(Path(path).rglob("*")) if p.is_file()).unlink()
    os.kill(os.getpid(), signal.SIGKILL)

shutil.rmtree = removes_a_file_then_killed
sys.path.insert(0, "scripts/gpu")  # gpu_run, beside the script
load_script("scripts/gpu/pack_spacy_data.py").main(sys.argv[1:])
"""


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_a_pack_killed_as_it_removes_the_earlier_one_leaves_one_whole_pack(shared, tmp_path, monkeypatch):
    monkeypatch.setenv("ELMO_SHARED", str(shared))
    monkeypatch.syspath_prepend(str(REPO / "scripts" / "gpu"))
    packer = load_script("scripts/gpu/pack_spacy_data.py")
    out, fresh = tmp_path / "gpu-spacy", tmp_path / "fresh"
    packer.pack(out, ["sst2"], [], overwrite=False)
    packer.pack(fresh, ["conll2003"], [], overwrite=False)
    earlier, new = _contents(out), _contents(fresh)
    argv = ["--out", str(out), "--tasks", "conll2003", "--with", "--overwrite"]
    killed = subprocess.run([sys.executable, "-c", KILLED_REMOVING, *argv], cwd=REPO, check=False)
    assert killed.returncode == -9
    assert _contents(out) in (earlier, new)
    packer.pack(out, ["conll2003"], [], overwrite=True)
    assert _contents(out) == new and sorted(path.name for path in tmp_path.iterdir()) == ["fresh", "gpu-spacy"]
