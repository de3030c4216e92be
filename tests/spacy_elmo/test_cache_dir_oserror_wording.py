"""The on-disk activation cache says what the system refused as the scripts and commands do, ``FILE: REASON``,
without Python's ``[Errno N]`` (``error_text``)."""

import errno
import os

import numpy as np
import pytest

from spacy_elmo import cache as activation_cache

FULL = os.strerror(errno.ENOSPC)


def test_a_full_disk_warning_gives_the_reason_without_the_errno(tmp_path, monkeypatch):
    """Was: '... cannot write in FOLDER ([Errno 28] No space left on device: '.../FOLDER'): ...'."""
    cache = activation_cache.ActivationCache(max_mb=16, directory=tmp_path)

    def make_folder(directory, folder):
        raise OSError(errno.ENOSPC, FULL, str(folder))

    monkeypatch.setattr(activation_cache, "_make_folder", make_folder)
    with pytest.warns(UserWarning) as caught:
        cache.put("a", np.zeros((3, 2, 2), dtype="float32"))
    folder = cache._folder
    assert str(caught[0].message).startswith(
        f"the elmo component's cache cannot write in {folder} ({folder}: {FULL}): the layers that cannot"
    )


def test_a_cache_dir_whose_name_is_too_long_is_refused_without_the_errno(tmp_path):
    directory = tmp_path / ("a" * 300)
    with pytest.raises(ValueError) as refused:
        activation_cache.ActivationCache(max_mb=16, directory=directory)
    assert f"{directory} cannot be made or written ({directory}: {os.strerror(errno.ENAMETOOLONG)})" in str(
        refused.value
    )
