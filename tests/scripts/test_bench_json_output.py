"""The benchmark scripts' ``--json`` output is checked before they run (an input, a folder or a link is refused
in one line; was: written over, or a traceback after the whole run, its figures lost) and written whole
(``write_text_atomic``)."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script

#: Each script with the options that make a given file its input.
SCRIPTS = {
    "bench_embed.py": lambda source: [str(source)],
    "bench_inference.py": lambda source: ["--no-reference", "--text", str(source)],
    "bench_onnx.py": lambda source: ["--text", str(source)],
}


@pytest.mark.parametrize("script", list(SCRIPTS))
@pytest.mark.parametrize("output", ["the input", "a folder", "a link"])
def test_a_json_output_that_is_the_input_a_folder_or_a_link_is_refused_before_the_run(
    script, output, tmp_path, capsys, monkeypatch
):
    source = tmp_path / "sentences.txt"
    source.write_text("the cat sat .\n", encoding="utf-8")
    (tmp_path / "notes.json").write_text("mine")
    json_file = {"the input": source, "a folder": tmp_path, "a link": tmp_path / "link.json"}[output]
    if output == "a link":
        json_file.symlink_to(tmp_path / "notes.json")
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where they import their siblings from
    module = load_script(f"scripts/{script}")
    with pytest.raises(SystemExit) as exit:
        module.main([*SCRIPTS[script](source), "--json", str(json_file)])
    assert exit.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    said = {"the input": "is the input", "a folder": "is a folder", "a link": "is a symbolic link"}[output]
    assert f": error: argument --json: the output {json_file} {said}" in error, error  # after the usage
    assert source.read_text() == "the cat sat .\n" and (tmp_path / "notes.json").read_text() == "mine"
