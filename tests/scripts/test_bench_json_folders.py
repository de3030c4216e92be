"""The benchmark scripts' ``--json`` output under a file, or in a folder that cannot be written, is refused in
one line before they run (was: found only when the figures were written, after the whole run, and lost with
a traceback); one in a folder that does not exist yet is written there."""

from __future__ import annotations

import errno

import pytest

from tests.conftest import REPO, load_script
from tests.hf_elmo.test_fileio import refuse_writes_in
from tests.scripts.test_bench_json_output import SCRIPTS

#: What each script runs once its options are checked.
RUNS = {"bench_embed.py": "run_side", "bench_inference.py": "bench", "bench_onnx.py": "bench"}


def started(*args, **kwargs):
    raise AssertionError("the benchmark ran")


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "sentences.txt"
    path.write_text("the cat sat .\n", encoding="utf-8")
    return path


def refusal(script, source, json_file, capsys, monkeypatch) -> str:
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where they import their siblings from
    module = load_script(f"scripts/{script}")
    monkeypatch.setattr(module, RUNS[script], started)
    with pytest.raises(SystemExit) as exit:
        module.main([*SCRIPTS[script](source), "--json", str(json_file)])
    assert exit.value.code == 2
    return capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_json_output_under_a_file_is_refused_before_the_run(script, source, tmp_path, capsys, monkeypatch):
    json_file = source / "figures.json"
    error = refusal(script, source, json_file, capsys, monkeypatch)
    assert error.endswith(
        f": error: argument --json: {source} is a file, not a folder, so {json_file} cannot be written under it; "
        "choose another output path"
    ), error


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_json_output_in_an_unwritable_folder_is_refused_before_the_run(script, source, tmp_path, capsys, monkeypatch):
    json_file = tmp_path / "figures" / "run.json"
    json_file.parent.mkdir()
    refuse_writes_in(monkeypatch, json_file.parent, errno.EACCES)
    error = refusal(script, source, json_file, capsys, monkeypatch)
    assert f": error: argument --json: cannot write {json_file}: " in error, error


def test_the_rows_so_far_are_written_in_a_new_folder(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    module = load_script("scripts/bench_inference.py")
    module.save([{"size": "small"}], tmp_path / "new" / "run.json")
    assert (tmp_path / "new" / "run.json").read_text() == '[\n {\n  "size": "small"\n }\n]'


def test_bench_embed_writes_its_json_in_a_new_folder(source, tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from
    module = load_script("scripts/bench_embed.py")
    record = {"code": "here", "total": 1.0, "phases": dict.fromkeys(module.ROWS, 0.1), "peak_rss_mb": 1.0}
    record |= {"device": "cpu", "threads": 1, "tokens_per_batch": 4096}  # what the worker ran with
    monkeypatch.setattr(module, "run_side", lambda *args: record)
    module.main([str(source), "--json", str(tmp_path / "new" / "run.json")])
    assert '"lines": 1' in (tmp_path / "new" / "run.json").read_text()
