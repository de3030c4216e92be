"""``save_pretrained`` of the model, its config and its tokenizer into a folder that cannot be listed is refused in
one line naming the folder and the reason, without Python's ``[Errno 13]`` (was: ``[Errno 13] Permission denied:
'...'``, from the check of the folder's links). The tests run as root, who may list any folder: ``os.scandir`` is made
to refuse."""

from __future__ import annotations

import errno
import os

import pytest

import hf_elmo.configuration_elmo
from hf_elmo import ElmoTokenizer
from tests.hf_elmo.random_inputs import clipped_random_model

DENIED = os.strerror(errno.EACCES)


@pytest.mark.parametrize(
    "save",
    [
        lambda folder: clipped_random_model().save_pretrained(folder),
        lambda folder: clipped_random_model().config.save_pretrained(folder),
        lambda folder: ElmoTokenizer().save_pretrained(folder),
    ],
    ids=["model", "config", "tokenizer"],
)
def test_a_save_into_a_folder_that_cannot_be_listed_is_one_line(tmp_path, monkeypatch, save):
    def scandir(path):
        raise PermissionError(errno.EACCES, DENIED, os.fspath(path))

    monkeypatch.setattr(hf_elmo.configuration_elmo.os, "scandir", scandir)
    with pytest.raises(PermissionError) as refused:
        save(tmp_path)
    assert str(refused.value) == (
        f"save_pretrained cannot list {tmp_path} ({DENIED}): give a folder you may read and write"
    )
    assert list(tmp_path.iterdir()) == []
