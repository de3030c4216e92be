"""A folder that holds only what a killed first save_pretrained into it left (its lock file and its hidden
``.elmo-saving-XXXXXXXX`` folder, no ``config.json`` yet) is elmo's own: ``elmo convert --overwrite`` replaces it (was:
refused, "is not empty and holds no earlier output of elmo"), and without ``--overwrite`` the refusal says to pass
it; a file of the user's beside them still keeps the folder."""

from __future__ import annotations

import os

import pytest

from hf_elmo import ElmoModel
from hf_elmo.configuration_elmo import SAVE_LOCK, is_save_aside
from hf_elmo.output_folders import build_aside
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_convert_safety import convert, error_of, original  # noqa: F401  # (original: a fixture)
from tests.hf_elmo.test_files_save_killed_leftovers import killed_save


def _left(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name == SAVE_LOCK or is_save_aside(name))


@pytest.fixture
def killed_first_save(tmp_path, one_thread):
    out = tmp_path / "model"
    killed_save(clipped_random_model(), out)
    assert len(_left(out)) == 2 and sorted(os.listdir(out)) == _left(out)
    return out


def test_convert_overwrite_replaces_what_a_killed_first_save_left(original, killed_first_save):  # noqa: F811
    assert convert(original, killed_first_save, "--overwrite") == 0
    assert _left(killed_first_save) == []
    ElmoModel.from_pretrained(killed_first_save)


def test_without_overwrite_the_refusal_says_to_pass_it(original, killed_first_save, capsys):  # noqa: F811
    assert convert(original, killed_first_save) == 2
    assert error_of(capsys) == (
        f"elmo convert: error: {killed_first_save} exists and is not empty (pass --overwrite to replace it)"
    )


def test_a_file_of_the_users_beside_them_still_keeps_the_folder(original, killed_first_save, capsys):  # noqa: F811
    (killed_first_save / "notes.txt").write_text("mine")
    assert convert(original, killed_first_save, "--overwrite") == 2
    assert "is not empty and holds no earlier output of elmo" in error_of(capsys)
    assert (killed_first_save / "notes.txt").read_text() == "mine" and len(_left(killed_first_save)) == 2


def test_an_export_overwrite_replaces_them_too(killed_first_save):
    with build_aside(killed_first_save, overwrite=True, kind="export") as staging:
        (staging / "elmo_export.json").write_text("{}")
    assert sorted(os.listdir(killed_first_save)) == ["elmo_export.json"]
