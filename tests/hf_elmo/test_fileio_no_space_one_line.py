"""A full disk is said in one line, without the ``[Errno 28]`` that ``OSError(errno, text)`` puts
before the text, and the error keeps its errno (``fileio.oserror_in_one_line``)."""

from __future__ import annotations

import errno

import pytest

import hf_elmo.archives
import hf_elmo.fileio
from hf_elmo.fileio import ensure_free_space
from tests.hf_elmo.test_convert_safety import DiskUsage
from tests.hf_elmo.test_loading import _FillsTheDisk, _zip, original  # noqa: F401 (a fixture)


def test_a_disk_without_room_is_one_line_without_the_errno_prefix(tmp_path, monkeypatch):
    """Was: "[Errno 28] no space left on the disk of ...", the errno number before the sentence."""
    monkeypatch.setattr(hf_elmo.fileio.shutil, "disk_usage", lambda path: DiskUsage(10**9, 10**9, 10**6))
    with pytest.raises(OSError) as raised:
        ensure_free_space(tmp_path / "out.hdf5", 10**6, "the output out.hdf5")
    assert raised.value.errno == errno.ENOSPC
    assert str(raised.value).startswith(f"no space left on the disk of {tmp_path} for the output out.hdf5 (needs ")
    assert str(raised.value).endswith("; free some space and run the command again")


def test_a_disk_that_fills_while_extracting_an_archive_is_one_line_without_the_errno_prefix(
    original,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    """Was: "[Errno 28] no space left on the disk of ... for extracting ...: its member ..."."""
    archive = _zip(original, tmp_path / "210.zip", "210/")
    into = tmp_path / "extracted"
    into.mkdir()
    monkeypatch.setattr(hf_elmo.archives, "open", lambda path, mode: _FillsTheDisk(path, mode, 1000), raising=False)
    with pytest.raises(OSError) as raised:
        hf_elmo.archives.extract_original_files(archive, into, weights=True)
    assert raised.value.errno == errno.ENOSPC
    assert str(raised.value).startswith(f"no space left on the disk of {tmp_path} for extracting {archive}: its member")
