"""The writers of one file (the layer-weights figure, ``scripts/convert_corpora.py``'s ``.spacy`` file) hold
its lock (``fileio.sole_writer``): the hidden temporary file that a killed writer left beside the output
is removed by the next run, another run's is never touched, and a second run at the same time is refused
in one line."""

import numpy as np
import pytest

from hf_elmo.fileio import lock_path
from spacy_elmo.layer_weights import MixWeights, main, save_layer_weights
from tests.hf_elmo.test_fileio import lock_held_by_another_process
from tests.spacy_elmo.test_configs_and_corpora import convert_corpora

MIXES = [MixWeights("ner", np.array([0.2, 0.5, 0.3]), 1.5)]


def write_figure(output, capsys):
    save_layer_weights(MIXES, output)


def write_corpus(output, capsys):
    source = output.parent / "sst.tiny"
    source.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    run = convert_corpora(capsys, "sst", str(source), str(output))
    assert run.returncode == 0, run.stderr
    source.unlink()


@pytest.mark.parametrize("write, name", [(write_figure, "w.png"), (write_corpus, "train.spacy")])
def test_a_killed_writers_temporary_file_is_removed_by_the_next_run(write, name, tmp_path, capsys):
    """Was: ``.w.png.abcd1234.tmp`` (a figure, a corpus: megabytes) stayed beside the output for good,
    as these writers held no lock and so could not tell it from a live writer's."""
    output = tmp_path / name
    killed = tmp_path / f".{name}.abcd1234.tmp"  # as atomic_file names it
    killed.write_bytes(b"half-written")
    other = tmp_path / ".notes.txt.abcd1234.tmp"  # another file's: not this output's to remove
    other.write_bytes(b"someone else's")
    write(output, capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, other.name])


def test_a_second_figure_writer_at_once_is_refused_and_leaves_the_first_ones_file(tmp_path):
    output = tmp_path / "w.png"
    live = tmp_path / ".w.png.abcd1234.tmp"  # the live writer's, which holds the lock
    live.write_bytes(b"being written")
    with lock_held_by_another_process(lock_path(output)):
        with pytest.raises(BlockingIOError, match=f"{output} is being written by another run"):
            save_layer_weights(MIXES, output)
    assert live.read_bytes() == b"being written" and not output.exists()


def test_a_second_corpus_writer_at_once_is_one_error_line(tmp_path, capsys):
    source = tmp_path / "sst.tiny"
    source.write_text("1 a fine film .\n0 dull .\n", encoding="utf-8")
    output = tmp_path / "train.spacy"
    with lock_held_by_another_process(lock_path(output)):
        run = convert_corpora(capsys, "sst", str(source), str(output))
    assert run.returncode == 1 and run.stderr.startswith(
        f"convert_corpora.py: error: {output} is being written by another run"
    )
    assert len(run.stderr.splitlines()) == 1 and not output.exists()


@pytest.mark.parametrize("tool", ["layer_weights", "convert_corpora"])
def test_a_lock_path_that_holds_a_users_file_is_refused_before_anything_is_read(tool, tmp_path, capsys):
    output = tmp_path / ("w.png" if tool == "layer_weights" else "train.spacy")
    lock_path(output).write_text("mine")
    if tool == "layer_weights":  # the pipeline is missing: the output is checked first
        code, err = main([str(tmp_path / "missing"), str(output)]), capsys.readouterr().err
    else:
        run = convert_corpora(capsys, "sst", str(tmp_path / "missing.txt"), str(output))
        code, err = run.returncode, run.stderr
    said = "python -m spacy_elmo.layer_weights: error:" if tool == "layer_weights" else "convert_corpora.py: error:"
    assert (
        code == 1
        and err
        == f"{said} {lock_path(output)} exists and is no lock of elmo (it is not empty); move it, or write elsewhere\n"
    )
    assert lock_path(output).read_text() == "mine"


def test_a_figure_saved_to_a_quoted_home_path_goes_to_the_home_folder(tmp_path, monkeypatch):
    """Was: written into a folder named '~' in the current folder."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    save_layer_weights(MIXES, "~/plots/w.png")
    assert (tmp_path / "home" / "plots" / "w.png").read_bytes().startswith(b"\x89PNG")
    assert list((tmp_path / "work").iterdir()) == []


def test_a_figure_under_a_file_names_that_file_before_the_pipeline_loads(tmp_path, capsys, monkeypatch):
    """Was: the pipeline loaded, then 'error: OUT: [Errno 17] File exists: .../notes.txt' from making the folder."""
    import spacy

    (tmp_path / "notes.txt").write_text("mine")
    out = tmp_path / "notes.txt" / "plots" / "w.png"
    monkeypatch.setattr(spacy, "load", lambda *args, **kwargs: pytest.fail("the pipeline was loaded"))
    assert main([str(tmp_path / "pipeline"), str(out)]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(
        f"python -m spacy_elmo.layer_weights: error: {tmp_path / 'notes.txt'} is a file, not a folder, so {out} cannot be written"
    )
    with pytest.raises(NotADirectoryError):
        save_layer_weights(MIXES, out)
    assert (tmp_path / "notes.txt").read_text() == "mine"
