"""``gpu_run.py pack``, ``evalpack`` and ``assemble`` (and ``pack_spacy_data.py``) killed (kill -9) between
``swap_folder_in``'s two renames, the earlier folder moved out into the run's scratch folder and the new one not yet
in: the next run puts the earlier one back first (``fileio.put_back_swapped_out``), and checks it as any earlier one
(was: the next run found none, and removed the earlier one with the killed run's scratch folder: a pack without
--overwrite written in its place, an evalpack failed on the missing manifest; an assemble's was left for good in a
``tmpXXXXXXXX`` folder)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hf_elmo.fileio import SWAPPED_OUT
from tests.conftest import REPO, load_script
from tests.scripts.test_gpu_run import failure
from tests.scripts.test_gpu_run_assemble_overwrite import _collected
from tests.scripts.test_gpu_run_evalpack_whole import _pack
from tests.scripts.test_gpu_run_pack_overwrite import earlier_pack

gpu_run = load_script("scripts/gpu/gpu_run.py")

KILLED_BETWEEN_THE_RENAMES = f"""
import os, signal, sys
from tests.conftest import load_script

replace = os.replace

def replace_then_killed(source, target):
    replace(source, target)
    if os.path.basename(target) == {SWAPPED_OUT!r}:  # the earlier pack moved out, the new one not yet in
        os.kill(os.getpid(), signal.SIGKILL)

os.replace = replace_then_killed
load_script("scripts/gpu/gpu_run.py").main(sys.argv[1:])
"""


def killed_between_the_renames(argv: list[str]) -> None:
    killed = subprocess.run([sys.executable, "-c", KILLED_BETWEEN_THE_RENAMES, *argv], cwd=REPO, check=False)
    assert killed.returncode == -9


def test_a_pack_killed_between_the_renames_leaves_the_earlier_pack_for_the_next_run(tmp_path, capsys):
    out, argv = earlier_pack(tmp_path)
    killed_between_the_renames(argv)
    assert not out.exists()
    capsys.readouterr()
    with pytest.raises(SystemExit):  # put back, then checked: not replaced without --overwrite
        gpu_run.main([arg for arg in argv if arg != "--overwrite"])
    assert f"{out} is not empty (pass --overwrite to replace it)" in capsys.readouterr().err
    assert {path.name: path.read_text() for path in out.iterdir()} == {
        "manifest.json": "earlier",
        "part-000": "earlier",
    }
    gpu_run.main(argv)  # which removes the killed run's scratch folder
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "tokenised"]
    assert "pieces" in json.loads((out / "manifest.json").read_text())


def test_an_evalpack_killed_between_the_renames_leaves_the_pack_for_the_next_run(tmp_path):
    pack, argv = _pack(tmp_path)
    part = (pack / "part-000").read_bytes()
    killed_between_the_renames(argv)
    assert not pack.exists()
    gpu_run.main(argv)
    assert (pack / "part-000").read_bytes() == part and "eval" in json.loads((pack / "manifest.json").read_text())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gpu-pack", "test.txt", "wiki.test.tokens"]


def test_pack_spacy_data_puts_back_the_pack_that_a_run_killed_between_the_renames_moved_out(
    shared, tmp_path, monkeypatch
):
    monkeypatch.setenv("ELMO_SHARED", str(shared))
    monkeypatch.syspath_prepend(str(REPO / "scripts" / "gpu"))
    packer = load_script("scripts/gpu/pack_spacy_data.py")
    out = tmp_path / "gpu-spacy"
    moved_out = tmp_path / ".gpu-spacy.packing-abcd1234" / SWAPPED_OUT  # as the killed run left it; no process holds it
    moved_out.mkdir(parents=True)
    (moved_out / "earlier.txt").write_text("earlier")
    with pytest.raises(FileExistsError, match="exists"):  # put back, then checked: not replaced without --overwrite
        packer.pack(out, ["sst2"], [], overwrite=False)
    assert {path.name: path.read_text() for path in out.iterdir()} == {"earlier.txt": "earlier"}


def test_an_assemble_killed_between_the_renames_leaves_the_earlier_assembly_for_the_next_run(tmp_path, capsys):
    out, runs = _collected(tmp_path), tmp_path / "runs"
    gpu_run.main(["assemble", str(out), "--dest", str(runs)])
    (runs / "model" / "config.json").write_text('{"earlier": true}')
    killed_between_the_renames(["assemble", str(out), "--dest", str(runs), "--overwrite"])
    assert not (runs / "model").exists()
    assert failure(capsys, ["assemble", str(out), "--dest", str(runs)]) == (
        f"gpu_run.py: error: {runs / 'model'} exists (pass --overwrite to replace it)\n"
    )
    assert (runs / "model" / "config.json").read_text() == '{"earlier": true}'
    gpu_run.main(["assemble", str(out), "--dest", str(runs), "--overwrite"])
    assert [path.name for path in runs.iterdir()] == ["model"]  # the killed run's scratch folder removed
    assert (runs / "model" / "config.json").read_text() == "{}"
