"""scripts/gpu/gpu_run.py assemble: the user's files that a folder to replace holds are looked for in its subfolders
too (was: its top level only, so that --overwrite deleted a file of the user's in a subfolder the assembled folder
also has), and the refusal names at most 5 of them and how many more (was: every one)."""

from __future__ import annotations

from tests.conftest import load_script
from tests.scripts.test_gpu_run import failure

gpu_run = load_script("scripts/gpu/gpu_run.py")

REFUSED = "which --overwrite would delete with it; move them out, or assemble into another --dest\n"


def _collected(tmp_path):
    """The folder of a collect call that brought back a model folder with a subfolder, ``model/tokenizer``."""
    work, out = tmp_path / "work", tmp_path / "out"
    (work / "model" / "tokenizer").mkdir(parents=True)
    (work / "model" / "config.json").write_text("{}")
    (work / "model" / "tokenizer" / "tokenizer_config.json").write_text("{}")
    gpu_run.main(["collect", "--work", str(work), "--out", str(out)])
    return out


def test_a_file_of_the_users_in_a_subfolder_is_refused_and_kept(tmp_path, capsys):
    out, mine = _collected(tmp_path), tmp_path / "runs" / "model"
    gpu_run.main(["assemble", str(out), "--dest", str(tmp_path / "runs")])
    (mine / "tokenizer" / "notes.txt").write_text("mine")
    (mine / "tokenizer" / "drafts").mkdir()
    (mine / "tokenizer" / "drafts" / "a.txt").write_text("mine too")
    said = failure(capsys, ["assemble", str(out), "--dest", str(tmp_path / "runs"), "--overwrite"])
    assert said == (
        f"gpu_run.py: error: {mine} holds files that the assembled model does not (tokenizer/drafts, "
        f"tokenizer/notes.txt), {REFUSED}"
    )
    assert (mine / "tokenizer" / "notes.txt").read_text() == "mine"
    assert (mine / "tokenizer" / "drafts" / "a.txt").read_text() == "mine too"


def test_the_refusal_names_five_of_them_and_how_many_more(tmp_path, capsys):
    out, mine = _collected(tmp_path), tmp_path / "runs" / "model"
    mine.mkdir(parents=True)
    for number in range(1200):
        (mine / f"notes{number:04}.txt").write_text("mine")
    said = failure(capsys, ["assemble", str(out), "--dest", str(tmp_path / "runs"), "--overwrite"])
    listed = ", ".join(f"notes{number:04}.txt" for number in range(5))
    assert (
        said
        == f"gpu_run.py: error: {mine} holds files that the assembled model does not ({listed} and 1,195 more), {REFUSED}"
    )
    assert len(list(mine.iterdir())) == 1200
