"""Ctrl-C in `elmo convert` or `elmo export` says what it left of OUTPUT_DIR, which is built aside and swapped into
place whole (``build_aside``): nothing written and an earlier folder as it was, or the new folder, whole, when Ctrl-C
came after the swap (``_args.output_folder_left``; was: 'interrupted' alone)."""

from __future__ import annotations

import pytest

import hf_elmo.output_folders
from hf_elmo_cli import main


def stop(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.fixture
def convert(allennlp_fixture):
    def run(out, *options):
        return main(
            ["convert", str(allennlp_fixture / "options.json"), str(allennlp_fixture / "lm_weights.hdf5"), str(out)]
            + list(options)
        )

    return run


def test_ctrl_c_before_a_new_folder_is_swapped_in_says_nothing_was_written(convert, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    monkeypatch.setattr(hf_elmo.output_folders, "swap_folder_in", stop)
    assert convert(out) == 130
    assert capsys.readouterr().err == "elmo convert: interrupted; nothing was written\n"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_before_an_earlier_folder_is_replaced_says_it_is_as_it_was(convert, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert convert(out) == 0
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    capsys.readouterr()
    monkeypatch.setattr(hf_elmo.output_folders, "swap_folder_in", stop)
    assert convert(out, "--overwrite") == 130
    assert capsys.readouterr().err == f"elmo convert: interrupted; {out} is as it was: nothing was written\n"
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_ctrl_c_after_the_new_folder_is_swapped_in_says_it_is_whole(convert, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert convert(out) == 0
    capsys.readouterr()
    monkeypatch.setattr(hf_elmo.output_folders, "fsync_folder", stop)  # right after the swap
    assert convert(out, "--overwrite") == 130
    assert capsys.readouterr().err == f"elmo convert: interrupted; {out} was written whole before Ctrl-C came\n"
    assert (out / "config.json").is_file()


def test_elmo_export_says_what_ctrl_c_left_of_its_folder(model_dir, tmp_path, monkeypatch, capsys):
    out = tmp_path / "served"
    monkeypatch.setattr(hf_elmo.output_folders, "swap_folder_in", stop)
    assert main(["export", str(model_dir), str(out), "--format", "torch-export"]) == 130
    assert capsys.readouterr().err == "elmo export: interrupted; nothing was written\n"
    assert list(tmp_path.iterdir()) == []
