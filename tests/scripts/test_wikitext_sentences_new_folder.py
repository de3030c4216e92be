"""``scripts/wikitext_sentences.py`` writes into a folder that does not exist yet, as ``convert_corpora.py``
does, and leaves none behind when it fails."""

from __future__ import annotations

from tests.scripts.test_wikitext_sentences_output import WIKITEXT, run


def test_an_output_in_a_new_folder_is_written(tmp_path, capsys):
    """Was: "error: [Errno 2] No such file or directory: '.../out.txt.lock'", naming the lock, not the folder."""
    source = tmp_path / "wiki.test.tokens"
    source.write_text(WIKITEXT, encoding="utf-8")
    out = tmp_path / "new" / "deeper" / "out.txt"
    assert run(capsys, str(source), str(out)) == (0, "")
    assert out.read_text() == "The cat sat - down .\nA <UNK> dog barked .\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["out.txt"]


def test_a_failed_run_leaves_no_folder_it_made(tmp_path, capsys):
    """Its line names the file and the reason (was: "[Errno 2] No such file or directory: '.../missing.tokens'")."""
    code, err = run(capsys, str(tmp_path / "missing.tokens"), str(tmp_path / "new" / "out.txt"))
    assert (code, err) == (
        1,
        f"wikitext_sentences.py: error: {tmp_path / 'missing.tokens'}: No such file or directory\n",
    )
    assert list(tmp_path.iterdir()) == []
