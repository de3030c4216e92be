"""``save_allennlp`` refuses an options or weights path that ends with a slash, naming a folder, in one line that
says to name the file, and writes nothing (was: ``weights/`` written as a file named ``weights``, where the user
meant a folder), as ``elmo embed`` refuses its output so (its check: ``fileio.check_names_a_file``)."""

from __future__ import annotations

import pytest

from hf_elmo.convert import save_allennlp
from tests.hf_elmo.random_inputs import clipped_random_model


@pytest.mark.parametrize("slashed", ["options", "weights"])
def test_a_path_ending_with_a_slash_is_refused_and_nothing_written(tmp_path, slashed):
    options, weights = str(tmp_path / "options.json"), str(tmp_path / "weights.hdf5")
    what, example = {"options": ("options file", "options.json"), "weights": ("weights file", "weights.hdf5")}[slashed]
    given = str(tmp_path / "out") + "/"
    with pytest.raises(ValueError) as refused:
        if slashed == "options":
            save_allennlp(clipped_random_model(), given, weights)
        else:
            save_allennlp(clipped_random_model(), options, given)
    assert str(refused.value) == (
        f"the output {given} ends with '/', naming a folder; name the {what} to write (e.g. {tmp_path / 'out' / example})"
    )
    assert list(tmp_path.iterdir()) == []
