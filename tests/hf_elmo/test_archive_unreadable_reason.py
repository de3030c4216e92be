"""A zip archive of the original files that ``zipfile`` cannot open for a reason of the system's is refused with that
reason alone (``messages.error_reason``), not Python's ``[Errno N] ...: 'FILE'``, which named the archive twice."""

from __future__ import annotations

import errno
import os
import zipfile

import pytest

from hf_elmo import archives
from hf_elmo.messages import error_reason
from hf_elmo.modeling_elmo import InvalidModelError

DENIED = os.strerror(errno.EACCES)


def test_an_archive_that_cannot_be_opened_is_refused_with_the_reason_alone(tmp_path, monkeypatch):
    archive = tmp_path / "elmo.zip"
    archive.write_bytes(b"PK")

    def denied(file, *args, **kwargs):
        raise PermissionError(errno.EACCES, DENIED, str(file))

    monkeypatch.setattr(zipfile, "ZipFile", denied)
    with pytest.raises(InvalidModelError) as refused:
        archives.original_member_folder(archive)
    assert str(refused.value) == f"{archive} is not a readable zip archive ({DENIED})"


def test_an_archive_that_is_no_zip_still_says_so(tmp_path):
    archive = tmp_path / "elmo.zip"
    archive.write_bytes(b"not a zip")
    with pytest.raises(InvalidModelError, match=r"elmo\.zip is not a readable zip archive \(File is not a zip file\)"):
        archives.original_member_folder(archive)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (PermissionError(errno.EACCES, DENIED, "/x/y"), DENIED),
        (OSError("could not write /x: the disk is full"), "could not write /x: the disk is full"),
        (ValueError("first\nsecond"), "first"),
    ],
)
def test_error_reason(error, reason):
    assert error_reason(error) == reason
