"""An output folder that is a device or a pipe (``elmo export MODEL /dev/full``) is refused as one, never with the
advice to remove the file (was: '/dev/full is a file, not a folder; choose another output folder or remove the
file'); a regular file is still refused with that advice."""

from __future__ import annotations

import os

import pytest

from hf_elmo.output_folders import check_output_folder


def test_a_device_is_refused_as_a_device_without_removing_it():
    with pytest.raises(FileExistsError) as refused:
        check_output_folder("/dev/full", overwrite=True)
    assert str(refused.value) == "/dev/full is a device or pipe, not a folder; choose another output folder"


def test_a_pipe_likewise_and_a_file_as_a_file(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(FileExistsError, match=r"pipe is a device or pipe, not a folder; choose another output folder$"):
        check_output_folder(tmp_path / "pipe", overwrite=True)
    (tmp_path / "file").write_text("mine")
    with pytest.raises(FileExistsError, match=r"file is a file, not a folder; .* or remove the file$"):
        check_output_folder(tmp_path / "file", overwrite=True)
