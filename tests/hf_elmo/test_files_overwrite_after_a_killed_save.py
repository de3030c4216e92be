"""A model folder in which a save_pretrained was killed (kill -9 as it wrote the weights: its hidden
``.elmo-saving-XXXXXXXX`` folder and its lock file left there) is an earlier output that ``elmo convert --overwrite``
replaces whole (was: refused, "holds files that elmo did not write (.elmo-saving-...)"); a folder of the user's beside
them still keeps it from being replaced."""

from __future__ import annotations

import os

from hf_elmo import ElmoModel
from hf_elmo.configuration_elmo import SAVE_LOCK, is_save_aside
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_convert_safety import convert, error_of, original  # noqa: F401  # (original: a fixture)
from tests.hf_elmo.test_files_save_killed_leftovers import killed_save


def _left(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name == SAVE_LOCK or is_save_aside(name))


def test_convert_overwrite_replaces_a_model_folder_where_a_save_was_killed(original, tmp_path, one_thread):  # noqa: F811
    out = tmp_path / "model"
    assert convert(original, out) == 0
    killed_save(clipped_random_model(), out)
    assert len(_left(out)) == 2
    assert convert(original, out, "--overwrite") == 0
    assert _left(out) == []
    ElmoModel.from_pretrained(out)


def test_a_folder_of_the_users_beside_them_still_keeps_the_folder(original, tmp_path, one_thread, capsys):  # noqa: F811
    out = tmp_path / "model"
    assert convert(original, out) == 0
    killed_save(clipped_random_model(), out)
    (out / "notes").mkdir()
    assert convert(original, out, "--overwrite") == 2
    assert error_of(capsys).startswith(f"elmo convert: error: {out} holds files that elmo did not write (notes), ")
    assert len(_left(out)) == 2
