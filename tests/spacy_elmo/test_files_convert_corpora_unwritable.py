"""``scripts/convert_corpora.py`` refuses an output it cannot write in one line naming it, before it reads the corpus
(was: the corpus read, then a traceback from making the folder or the temporary file), and a file where a folder
on the way to it should be."""

from __future__ import annotations

import os

import pytest

from tests.hf_elmo.test_fileio import CANNOT_WRITE, refuse_writes_in
from tests.spacy_elmo.test_configs_and_corpora import convert_corpora


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "sst.tiny"
    path.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("code", CANNOT_WRITE)
@pytest.mark.parametrize("under", ["", "new/"])
def test_an_output_in_a_folder_that_cannot_be_written_is_one_line_naming_it(
    code, under, source, tmp_path, capsys, monkeypatch
):
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / under / "train.spacy"
    refuse_writes_in(monkeypatch, folder, code)
    run = convert_corpora(capsys, "sst", str(source), str(out))
    assert (run.returncode, run.stderr) == (
        1,
        f"convert_corpora.py: error: cannot write {out}: {folder} is not writable ({os.strerror(code)})\n",
    )
    assert list(folder.iterdir()) == []


def test_an_output_under_a_file_names_the_file(source, tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    out = tmp_path / "notes.txt" / "train.spacy"
    run = convert_corpora(capsys, "sst", str(source), str(out))
    assert run.returncode == 1 and run.stderr.startswith(
        f"convert_corpora.py: error: {tmp_path / 'notes.txt'} is a file, not a folder"
    )
    assert (tmp_path / "notes.txt").read_text() == "mine"
