"""scripts/gpu/gpu_run.py assemble --overwrite replaces only an earlier assembly of the same folder, moved aside
until the new one is in place: a folder there that holds files the assembled one does not (the user's) is
refused, with or without --overwrite, naming them, and kept (was: removed whole with ``shutil.rmtree``)."""

from __future__ import annotations

import shutil

from tests.conftest import load_script
from tests.scripts.test_gpu_run import failure

gpu_run = load_script("scripts/gpu/gpu_run.py")


def _collected(tmp_path):
    """The folder of a collect call that brought back a small model folder, ``model``, in pieces."""
    work, out = tmp_path / "work", tmp_path / "out"
    (work / "model").mkdir(parents=True)
    (work / "model" / "config.json").write_text("{}")
    (work / "model" / "weights.bin").write_bytes(bytes(range(256)) * 100)
    gpu_run.main(["collect", "--work", str(work), "--out", str(out), "--piece-mib", "0.01"])
    return out


def test_a_folder_holding_the_users_files_is_refused_and_kept(tmp_path, capsys):
    out, mine = _collected(tmp_path), tmp_path / "runs" / "model"
    mine.mkdir(parents=True)
    (mine / "config.json").write_text("my config")
    (mine / "notes.txt").write_text("mine")
    for overwrite in (["--overwrite"], []):
        said = failure(capsys, ["assemble", str(out), "--dest", str(tmp_path / "runs"), *overwrite])
        assert said == (
            f"gpu_run.py: error: {mine} holds files that the assembled model does not (notes.txt), which --overwrite "
            "would delete with it; move them out, or assemble into another --dest\n"
        )
        assert sorted(path.name for path in (tmp_path / "runs").iterdir()) == ["model"]
        assert (mine / "notes.txt").read_text() == "mine" and (mine / "config.json").read_text() == "my config"


def test_an_earlier_assembly_is_replaced_and_nothing_else_is_left(tmp_path, capsys):
    out, runs = _collected(tmp_path), tmp_path / "runs"
    gpu_run.main(["assemble", str(out), "--dest", str(runs)])
    (runs / "model" / "config.json").write_text('{"changed": true}')
    said = failure(capsys, ["assemble", str(out), "--dest", str(runs)])
    assert said == f"gpu_run.py: error: {runs / 'model'} exists (pass --overwrite to replace it)\n"
    gpu_run.main(["assemble", str(out), "--dest", str(runs), "--overwrite"])
    assert (runs / "model" / "config.json").read_text() == "{}"
    assert [path.name for path in runs.iterdir()] == ["model"]


def test_a_link_there_is_refused_and_its_folder_kept(tmp_path, capsys):
    out, runs, theirs = _collected(tmp_path), tmp_path / "runs", tmp_path / "theirs"
    shutil.copytree(tmp_path / "work" / "model", theirs)
    runs.mkdir()
    (runs / "model").symlink_to(theirs)
    said = failure(capsys, ["assemble", str(out), "--dest", str(runs), "--overwrite"])
    assert said == (
        f"gpu_run.py: error: {runs / 'model'} is a symbolic link (to {theirs}), so --overwrite does not replace it; "
        "assemble into another --dest\n"
    )
    assert (runs / "model").is_symlink() and sorted(path.name for path in theirs.iterdir()) == [
        "config.json",
        "weights.bin",
    ]
