"""An output in an existing folder where creating a file fails for a reason other than a permission or a read-only
file system (a pseudo file system such as /proc: ENOENT) is refused in one line that says the folder refuses new
files, with the system's reason (was: 'cannot write /proc/out: /proc is not writable (No such file or directory)',
of a folder that exists)."""

from __future__ import annotations

import errno
import os

import hf_elmo.loading
from hf_elmo_cli import main
from tests.hf_elmo.test_fileio import refuse_writes_in


def test_elmo_convert_into_a_folder_that_refuses_new_files_says_so(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "proc"
    folder.mkdir()
    out = folder / "out"

    def not_read(*args, **kwargs):
        raise AssertionError("the model was read before the output was checked")

    monkeypatch.setattr(hf_elmo.loading, "load_allennlp", not_read)
    refuse_writes_in(monkeypatch, folder, errno.ENOENT)
    assert main(["convert", str(tmp_path / "options.json"), str(tmp_path / "w.hdf5"), str(out)]) == 2
    assert capsys.readouterr().err == (
        f"elmo convert: error: cannot create {out}: {folder} refuses new files ({os.strerror(errno.ENOENT)})\n"
    )
    assert list(folder.iterdir()) == []
