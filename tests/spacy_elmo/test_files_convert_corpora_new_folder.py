"""``scripts/convert_corpora.py`` makes a missing output folder, and removes it again when the write fails: a
failed run leaves nothing of its own (was: the empty folder)."""

from __future__ import annotations

import errno

import pytest
from spacy.tokens import DocBin

from tests.spacy_elmo.test_configs_and_corpora import convert_corpora


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "sst.tiny"
    path.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    return path


def test_an_output_in_a_new_folder_is_written(source, tmp_path, capsys):
    out = tmp_path / "new" / "deeper" / "train.spacy"
    run = convert_corpora(capsys, "sst", str(source), str(out))
    assert (run.returncode, run.stdout) == (0, f"{out}: 2 docs\n")
    assert sorted(p.name for p in out.parent.iterdir()) == ["train.spacy"]


def test_a_failed_write_leaves_no_folder_it_made(source, tmp_path, capsys, monkeypatch):
    def full(self, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(DocBin, "to_disk", full)
    run = convert_corpora(capsys, "sst", str(source), str(tmp_path / "new" / "train.spacy"))
    assert (run.returncode, run.stderr) == (1, "convert_corpora.py: error: No space left on device\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sst.tiny"]
