"""A script's input file named with a trailing slash (``wiki.test.tokens/``) is refused in one line naming the
input and saying to drop the slash (``_args.input_file``, through ``hf_elmo.fileio.check_input_names_a_file``):
wikitext_sentences.py's and convert_corpora.py's source, bench_inference.py's and bench_onnx.py's --text. Was:
``Path`` dropped the slash, and the file was read quietly."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script, run_main


@pytest.mark.parametrize(
    ("script", "argv"),
    [
        ("scripts/wikitext_sentences.py", ["{source}/", "out.txt"]),
        ("scripts/convert_corpora.py", ["sst", "{source}/", "out.spacy"]),
    ],
    ids=["wikitext_sentences", "convert_corpora"],
)
def test_a_source_with_a_trailing_slash_is_refused_writing_nothing(script, argv, tmp_path, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.txt").write_text("= T =\n 1 a b c .\n", encoding="utf-8")
    module = load_script(script)
    code, out, err = run_main(module, [arg.format(source="in.txt") for arg in argv], capsys)
    assert code == 2
    assert err.splitlines()[-1].endswith(
        "error: argument source: the input in.txt/ ends with '/', naming a folder, but in.txt is a file: drop the '/'"
    )
    assert out == ""
    assert [path.name for path in tmp_path.iterdir()] == ["in.txt"]
