"""``bench_embed.py --json`` that names a file of the model given to elmo embed (``--model MODEL``, passed on) is
refused before the runs, in one line (was: the model's file written over with the records after them)."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script


@pytest.mark.parametrize("form", ["--model MODEL", "--model=MODEL"])
def test_a_json_output_that_is_a_file_of_the_model_is_refused_before_the_run(form, tmp_path, capsys, monkeypatch):
    source = tmp_path / "sentences.txt"
    source.write_text("the cat sat .\n", encoding="utf-8")
    model = tmp_path / "model"
    model.mkdir()
    config = model / "config.json"
    config.write_text("{}")
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from
    module = load_script("scripts/bench_embed.py")
    option = form.replace("MODEL", str(model)).split(" ")
    with pytest.raises(SystemExit) as exit:
        module.main([str(source), *option, "--json", str(config)])
    assert exit.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert f": error: argument --json: the output {config} is the input" in error, error
    assert config.read_text() == "{}"


def test_the_model_file_is_an_input_and_no_model_adds_none(tmp_path):
    module = load_script("scripts/bench_embed.py")
    assert module.model_files(["--layers", "all"]) == []
    assert module.model_files(["--model", str(tmp_path / "weights.hdf5")]) == [tmp_path / "weights.hdf5"]
