"""scripts/sync_shipped_code.py replaces a shipped folder's code and config.json each whole or not at all:
a copy that fails midway (a full disk) leaves the folder's earlier files, never a truncated one or none."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from hf_elmo import ElmoConfig, ElmoForBidirectionalLM
from tests.conftest import load_script
from tests.spacy_elmo.pipeline_helpers import TINY


def test_a_copy_that_fails_midway_leaves_the_shipped_folder_as_it_was(tmp_path, monkeypatch):
    module = load_script("scripts/sync_shipped_code.py")
    folder = tmp_path / "shipped"
    ElmoForBidirectionalLM(ElmoConfig(**TINY, vocab_size=20)).save_pretrained(folder)
    module.sync(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    copy = shutil.copyfile

    def copy_half_of_the_config(source, destination):
        if Path(source).name != "config.json" or Path(destination).parent != folder:
            return copy(source, destination)
        with open(destination, "wb") as handle:
            handle.write(Path(source).read_bytes()[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(module.shutil, "copyfile", copy_half_of_the_config)
    with pytest.raises(OSError, match="No space left"):
        module.sync(folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
