"""save_allennlp refuses one file for its options and weights through fileio's one same-path check
(check_writable_output's inputs), which names the two paths where they are written differently."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoModel
from hf_elmo.convert import save_allennlp
from tests.hf_elmo.test_heads import tiny_config


def test_one_file_written_two_ways_for_options_and_weights_is_refused_naming_both(tmp_path):
    (tmp_path / "sub").mkdir()
    options, weights = tmp_path / "options.json", tmp_path / "sub" / ".." / "options.json"
    with pytest.raises(FileExistsError) as refused:
        save_allennlp(ElmoModel(tiny_config()), options, weights)
    assert str(refused.value) == f"the output {weights} is the options file {options}; write to another path"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]
