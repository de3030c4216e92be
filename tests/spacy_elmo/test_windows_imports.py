"""spacy_elmo where Windows lacks what POSIX has: it imports without ``os.register_at_fork`` (was: AttributeError
at import, bilm.py registering its fork hook unconditionally), and the cache's private folder is checked without
``os.getuid`` (was: AttributeError where a worker found its parent's folder made). Forced here by removing them."""

from __future__ import annotations

import os
import subprocess
import sys

from spacy_elmo import cache

_WITHOUT_FORK_HOOK = """
import os
import random  # the libraries' own hooks registered first: only spacy_elmo's is tried without it

import hf_elmo
import spacy
import thinc.api
import torch

del os.register_at_fork
import spacy_elmo.bilm
print("imported")
"""


def test_spacy_elmo_imports_where_there_is_no_register_at_fork():
    run = subprocess.run([sys.executable, "-c", _WITHOUT_FORK_HOOK], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr.splitlines()[-1:]
    assert run.stdout.strip() == "imported"


def test_an_existing_cache_folder_is_accepted_where_there_is_no_getuid(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.delattr(os, "getuid")
    cache._make_private_folder(folder)  # made by another process of the same cache: accepted
    assert folder.is_dir()
