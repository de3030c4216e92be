"""``python -m spacy_elmo.layer_weights``: values on the bars; the PNG written whole, its folder made;
one error line and exit code 1 for a pipeline without ELMo (the missing-matplotlib error: test_plot_extra.py)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import spacy

from spacy_elmo.layer_weights import MixWeights, layer_weights_figure, main, save_layer_weights
from tests.hf_elmo.test_fileio import CANNOT_WRITE, refuse_writes_in


def test_every_bar_carries_its_weight():
    mixes = [MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5), MixWeights("textcat", np.array([0.6, 0.1, 0.3]), 0.9)]
    figure = layer_weights_figure(mixes)
    labels = [[text.get_text() for text in axis.texts] for axis in figure.axes]
    assert labels == [["0.200", "0.500", "0.300"], ["0.600", "0.100", "0.300"]]


def test_a_pipeline_without_elmo_is_one_error_line_and_exit_code_1(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(tmp_path / "plain")
    run = subprocess.run(
        [sys.executable, "-m", "spacy_elmo.layer_weights", str(tmp_path / "plain"), str(tmp_path / "w.png")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "no initialised ELMo scalar mix" in lines[0], run.stderr
    assert lines[0].startswith("python -m spacy_elmo.layer_weights: error: "), lines  # its name, as argparse's
    assert not (tmp_path / "w.png").exists()


def test_the_figure_is_written_whole_into_a_new_folder_or_not_at_all(tmp_path):

    mixes = [MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)]
    save_layer_weights(mixes, tmp_path / "plots" / "ner.png")
    assert (tmp_path / "plots" / "ner.png").read_bytes()[:4] == b"\x89PNG"
    assert [p.name for p in (tmp_path / "plots").iterdir()] == ["ner.png"]  # no temporary file left
    (tmp_path / "taken").write_text("a file where a folder should be")
    with pytest.raises(OSError):
        save_layer_weights(mixes, tmp_path / "taken" / "ner.png")


def test_the_usage_names_the_command_as_it_is_run(capsys):
    """As README and the module docstring give it, its arguments in capitals as the elmo commands' are (was
    'usage: layer_weights.py [-h] pipeline output', a file name that python -m never runs)."""
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.startswith("usage: python -m spacy_elmo.layer_weights [-h] PIPELINE_DIR OUTPUT")


@pytest.mark.parametrize("code", CANNOT_WRITE)
@pytest.mark.parametrize("under", ["", "new/"])
def test_an_output_on_a_read_only_file_system_or_unwritable_folder_is_one_line_naming_it_before_loading(
    code, under, tmp_path, capsys, monkeypatch
):
    """Named once. Was: the pipeline loaded, then '[Errno 30] Read-only file system: '.../new'' (or
    the PNG's temporary file) from making the folder or writing the file; then 'error: OUT: [Errno 30]
    cannot write OUT: ...', the output named twice."""
    folder = tmp_path / "ro"
    folder.mkdir()
    out = folder / under / "w.png"

    def not_loaded(*args, **kwargs):
        raise AssertionError("the pipeline was loaded before the output was checked")

    monkeypatch.setattr(spacy, "load", not_loaded)
    refuse_writes_in(monkeypatch, folder, code)
    assert main([str(tmp_path / "pipeline"), str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"python -m spacy_elmo.layer_weights: error: cannot write {out}: {folder} is not writable ({os.strerror(code)})"
    ]
    assert list(folder.iterdir()) == []
    with pytest.raises(OSError, match=f"cannot write {out}: {folder} is not writable"):
        save_layer_weights([MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)], out)


@pytest.mark.parametrize("pipeline", ["missing", "not a pipeline"])
def test_a_pipeline_that_cannot_be_loaded_is_one_line_naming_it_once(pipeline, tmp_path, capsys):
    """spaCy's message names the folder ("[E052] Can't find model directory: PATH"). Was: 'error: PATH:
    [E052] Can't find model directory: PATH', the folder named twice."""
    path = tmp_path / pipeline
    if pipeline == "not a pipeline":
        path.mkdir()
    assert main([str(path), str(tmp_path / "w.png")]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert (
        line.startswith("python -m spacy_elmo.layer_weights: error: [E05")
        and line.endswith(str(path))
        and line.count(str(path)) == 1
    ), line


@pytest.mark.parametrize("output", ["config.cfg", "elmo/bilm/model.safetensors", "../notes.txt"])
def test_an_output_that_is_a_file_of_the_pipeline_or_no_png_is_refused_before_loading(
    output, tmp_path, capsys, monkeypatch
):
    """Was: replaced by the PNG, silently: `layer_weights model-best model-best/config.cfg` (a slip of the
    tab key) destroyed the pipeline it plots, and any other file named as OUTPUT was lost."""
    pipeline = tmp_path / "pipeline"
    (pipeline / "elmo" / "bilm").mkdir(parents=True)
    (pipeline / "config.cfg").write_text("[nlp]\n")
    (pipeline / "elmo" / "bilm" / "model.safetensors").write_bytes(b"weights")
    (tmp_path / "notes.txt").write_text("mine")
    out = pipeline / output
    before = out.read_bytes()

    def not_loaded(*args, **kwargs):
        raise AssertionError("the pipeline was loaded before the output was checked")

    monkeypatch.setattr(spacy, "load", not_loaded)
    assert main([str(pipeline), str(out)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"python -m spacy_elmo.layer_weights: error: {out} "), lines
    assert ("is a file of the pipeline" if output != "../notes.txt" else "is no PNG image") in lines[0]
    assert out.read_bytes() == before


def test_an_earlier_png_is_replaced(tmp_path):
    out = tmp_path / "w.png"
    mixes = [MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)]
    save_layer_weights(mixes, out)
    first = out.read_bytes()
    save_layer_weights([MixWeights("ner", np.array([0.6, 0.1, 0.3]), 0.9)], out)
    assert out.read_bytes()[:4] == b"\x89PNG" and out.read_bytes() != first
