"""``elmo perplexity FILE --json OUT.json`` (as the scripts' ``--json FILE``) says in one line that ``--json`` takes no
file and how to write the figures to one, before anything loads (was: ``FILE is a file, but a model is a folder``, or
``the corpus file OUT.json: no such file``: OUT.json read as FILE, FILE as MODEL); OUT.json is left as it was."""

from __future__ import annotations

import pytest

from hf_elmo_cli import main


@pytest.mark.parametrize("earlier", [None, "{}\n"])
def test_a_file_after_json_is_refused_naming_the_redirection(earlier, tmp_path, capsys):
    corpus, out = tmp_path / "test.txt", tmp_path / "out.json"
    corpus.write_text("a b c\n", encoding="utf-8")
    if earlier is not None:
        out.write_text(earlier)
    assert main(["perplexity", str(corpus), "--json", str(out), "--no-progress"]) == 2
    assert capsys.readouterr().err == (
        f"elmo perplexity: error: --json takes no file: it prints the figures as JSON on stdout, and {out} was read "
        f"as FILE and {corpus} as MODEL; to write them to a file: elmo perplexity {corpus} --json > {out}\n"
    )
    assert (out.read_text() if out.exists() else None) == earlier
