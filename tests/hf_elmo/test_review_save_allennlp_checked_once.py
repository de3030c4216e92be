"""``save_allennlp`` checks its weights file once (``check_locked_output``, naming the options file where the two are
one path), its options file once (``check_locked_output``, as both are locked): was, the weights file checked twice
(``check_writable_output``, then again inside ``check_locked_output``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hf_elmo import fileio
from hf_elmo.convert import save_allennlp
from hf_elmo.fileio import check_locked_output
from tests.hf_elmo.random_inputs import clipped_random_model


def test_each_file_of_the_pair_is_checked_once(tmp_path, monkeypatch):
    checked: list[Path] = []
    check = fileio.check_writable_output

    def counted(path, *args, **kwargs):
        checked.append(Path(path))
        return check(path, *args, **kwargs)

    monkeypatch.setattr(fileio, "check_writable_output", counted)
    options, weights = tmp_path / "options.json", tmp_path / "weights.hdf5"
    save_allennlp(clipped_random_model(), options, weights)
    assert sorted(checked) == [options, weights]


def test_check_locked_output_names_what_its_inputs_are(tmp_path):
    path = tmp_path / "weights.hdf5"
    with pytest.raises(FileExistsError) as refused:
        check_locked_output(path, [path], inputs_are="the options file")
    assert str(refused.value) == f"the output {path} is the options file; write to another path"
