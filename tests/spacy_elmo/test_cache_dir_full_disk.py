"""A full disk (any ``OSError``) while the on-disk activation cache writes an entry leaves no partial
file in its folder and fails no doc: the entry is not cached, which one warning says."""

import contextlib
import errno
import os
import warnings

import numpy as np
import pytest

from spacy_elmo import cache as activation_cache

TEXTS = ["The cat sat on the mat .", "Hi", "A longer sentence with a few more words ."]


def _fill_the_disk(monkeypatch):
    """Make every ``np.save`` of the cache write part of its file, then fail as a full disk does."""

    def save(file, array, allow_pickle=True):
        with contextlib.ExitStack() as stack:
            handle = stack.enter_context(open(file, "wb")) if isinstance(file, (str, os.PathLike)) else file
            handle.write(b"\x93NUMPY partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(activation_cache.np, "save", save)


def test_a_full_disk_leaves_no_partial_file_and_warns_once_and_the_docs_are_unchanged(make_nlp, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    nlp = make_nlp(cache_mb=16, cache_dir=str(folder))
    uncached = make_nlp(cache_mb=0).get_pipe("elmo")
    expected = uncached.predict([nlp.make_doc(t) for t in TEXTS])
    _fill_the_disk(monkeypatch)
    elmo = nlp.get_pipe("elmo")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = elmo.predict([nlp.make_doc(t) for t in TEXTS])
        again = elmo.predict([nlp.make_doc(t) for t in TEXTS])  # nothing cached: recomputed, no new warning
    for a, b, c in zip(got, again, expected):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    assert len(elmo.cache) == 0
    assert [p for p in folder.rglob("*") if p.is_file()] == []  # no partial .npy, no temporary file
    messages = [str(w.message) for w in caught if "cache" in str(w.message)]
    assert len(messages) == 1, messages
    assert str(folder) in messages[0] and "No space left on device" in messages[0]


def test_the_entries_written_before_the_disk_filled_are_still_served(tmp_path, monkeypatch):
    cache = activation_cache.ActivationCache(max_mb=16, directory=tmp_path)
    first = np.arange(12, dtype="float32").reshape(3, 2, 2)
    cache.put("a", first)
    _fill_the_disk(monkeypatch)
    with pytest.warns(UserWarning, match="cannot write in"):
        cache.put("b", first + 1)
    assert cache.get("b") is None
    np.testing.assert_array_equal(cache.get("a"), first)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["a.npy"]


def test_a_cache_folder_that_cannot_be_made_on_a_full_disk_fails_no_doc(make_nlp, tmp_path, monkeypatch):
    """The cache's folder is made at its first entry: a full disk then (``mkdir``'s ENOSPC) is a
    warning and no entry cached, not an ``OSError`` out of ``nlp()``."""
    nlp = make_nlp(cache_mb=16, cache_dir=str(tmp_path / "cache"))

    def make_folder(directory, folder):
        raise OSError(errno.ENOSPC, "No space left on device", str(folder))

    monkeypatch.setattr(activation_cache, "_make_folder", make_folder)
    with pytest.warns(UserWarning, match="No space left on device"):
        docs = list(nlp.pipe(TEXTS))
    assert len(docs) == len(TEXTS) and len(nlp.get_pipe("elmo").cache) == 0
