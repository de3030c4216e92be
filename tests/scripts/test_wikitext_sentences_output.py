"""``scripts/wikitext_sentences.py`` writes its output aside and renames it into place under its lock: the
input, a folder, a link or a file named OUT.tmp are never written over, an interrupted or failed run leaves
an earlier output as it was and no temporary file, and each refusal is one line."""

from __future__ import annotations

import errno
import os
from types import ModuleType

import pytest

from tests.conftest import load_script, run_main

WIKITEXT = " = Title = \n\n The cat sat @-@ down . A <unk> dog barked . \n"


def run(capsys, *argv: str, module: ModuleType | None = None) -> tuple[int, str]:
    """The script's ``main(argv)`` (of ``module``, the script loaded, when given) in this process: its exit
    code and its stderr."""
    code, _, err = run_main(module or load_script("scripts/wikitext_sentences.py"), list(argv), capsys)
    return code, err


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "wiki.test.tokens"
    path.write_text(WIKITEXT, encoding="utf-8")
    return path


def test_the_sentences_are_written_and_nothing_else(source, tmp_path, capsys):
    """Was: OUT.tmp, a fixed name beside the output, written over (a file of the user's of that name was lost)."""
    (tmp_path / "wt2.txt.tmp").write_text("mine")
    assert run(capsys, str(source), str(tmp_path / "wt2.txt")) == (0, "")
    assert (tmp_path / "wt2.txt").read_text() == "The cat sat - down .\nA <UNK> dog barked .\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wiki.test.tokens", "wt2.txt", "wt2.txt.tmp"]
    assert (tmp_path / "wt2.txt.tmp").read_text() == "mine"


def test_the_input_as_output_is_refused_and_kept(source, tmp_path, capsys):
    """Was: the input replaced by its sentences (read while written aside, then renamed onto it)."""
    (tmp_path / "link").symlink_to(source)
    for out in (source, tmp_path / "link"):
        code, err = run(capsys, str(source), str(out))
        named = "" if out == source else f" {source}"
        assert (code, err) == (
            1,
            f"wikitext_sentences.py: error: the output {out} is the input{named}; write to another path\n",
        )
    assert source.read_text() == WIKITEXT


@pytest.mark.parametrize("kind", ["folder", "link"])
def test_a_folder_or_link_as_output_is_one_line_and_leaves_nothing(kind, source, tmp_path, capsys):
    """Was: a traceback (IsADirectoryError from the rename) and OUT.tmp left beside it, or a link replaced."""
    out = tmp_path / "out"
    if kind == "folder":
        out.mkdir()
    else:
        (tmp_path / "notes.txt").write_text("mine")
        out.symlink_to(tmp_path / "notes.txt")
    code, err = run(capsys, str(source), str(out))
    assert (
        code == 1 and err.startswith(f"wikitext_sentences.py: error: the output {out} is a ") and err.count("\n") == 1
    ), err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "notes.txt") == ["out", "wiki.test.tokens"]
    assert source.read_text() == WIKITEXT and out.is_symlink() == (kind == "link")


@pytest.mark.parametrize("stop", [KeyboardInterrupt, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))])
def test_an_interrupted_or_full_disk_run_keeps_the_earlier_output_and_leaves_no_temporary_file(
    stop, source, tmp_path, capsys, monkeypatch
):
    """Was: OUT.tmp left half-written (and a traceback for a full disk; then '[Errno 28] No space left on device')."""
    out = tmp_path / "wt2.txt"
    out.write_text("earlier\n")
    module = load_script("scripts/wikitext_sentences.py")
    real = module.sentences

    def stopped(lines):
        yield from list(real(lines))[:1]
        raise stop

    monkeypatch.setattr(module, "sentences", stopped)
    if stop is KeyboardInterrupt:
        with pytest.raises(KeyboardInterrupt):
            run(capsys, str(source), str(out), module=module)
    else:
        assert run(capsys, str(source), str(out), module=module) == (
            1,
            f"wikitext_sentences.py: error: {os.strerror(errno.ENOSPC)}\n",
        )
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wiki.test.tokens", "wt2.txt"]


def test_an_output_under_a_file_names_that_file(source, tmp_path, capsys):
    """Was: '[Errno 20] Not a directory: .../notes.txt/wt2.txt.lock', naming the lock file, not the user's."""
    (tmp_path / "notes.txt").write_text("mine")
    code, err = run(capsys, str(source), str(tmp_path / "notes.txt" / "wt2.txt"))
    assert (
        code == 1
        and err.startswith(f"wikitext_sentences.py: error: {tmp_path / 'notes.txt'} is a file, not a folder, so ")
        and err.count("\n") == 1
    )
    assert (tmp_path / "notes.txt").read_text() == "mine"
