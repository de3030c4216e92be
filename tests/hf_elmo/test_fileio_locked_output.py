"""``check_locked_output``: the one check, before a long run, of an output file that ``sole_writer`` and
``atomic_file`` write (``elmo embed``, ``elmo-layer-weights``, ``scripts/convert_corpora.py``,
``scripts/wikitext_sentences.py``), each refusal one line naming the output."""

from __future__ import annotations

import errno
import os

import pytest

from hf_elmo.fileio import check_locked_output, lock_path
from tests.hf_elmo.test_fileio import refuse_writes_in


def test_a_new_output_is_returned_as_a_path_and_nothing_is_written(tmp_path):
    assert check_locked_output(str(tmp_path / "new" / "out.txt")) == tmp_path / "new" / "out.txt"
    assert list(tmp_path.iterdir()) == []


def test_the_input_is_refused(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("a b\n")
    with pytest.raises(FileExistsError, match=r"^the output .*in\.txt is the input; write to another path$"):
        check_locked_output(source, [source])


def test_a_folder_is_refused(tmp_path):
    (tmp_path / "out.txt").mkdir()
    with pytest.raises(FileExistsError, match=r"out\.txt is a folder; give the path of the file to write$"):
        check_locked_output(tmp_path / "out.txt")


def test_a_lock_place_holding_a_file_of_the_users_is_refused(tmp_path):
    lock_path(tmp_path / "out.txt").write_text("notes")
    with pytest.raises(FileExistsError, match=r"out\.txt\.lock exists and is no lock of elmo"):
        check_locked_output(tmp_path / "out.txt")


def test_a_file_on_the_way_is_refused(tmp_path):
    (tmp_path / "a").write_text("")
    with pytest.raises(NotADirectoryError, match=r"a is a file, not a folder, so .* cannot be written under it"):
        check_locked_output(tmp_path / "a" / "b" / "out.txt")


def test_a_folder_that_cannot_be_written_is_refused_naming_the_output(tmp_path, monkeypatch):
    refuse_writes_in(monkeypatch, tmp_path, errno.EROFS)
    with pytest.raises(OSError) as caught:
        check_locked_output(tmp_path / "out.txt")
    assert str(caught.value) == (
        f"cannot write {tmp_path / 'out.txt'}: {tmp_path} is not writable ({os.strerror(errno.EROFS)})"
    )
