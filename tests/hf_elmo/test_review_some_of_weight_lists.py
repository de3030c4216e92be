"""A weight file's refusal that lists what it found lists it as every refusal does (``messages.some_of``: the first
ones, then "and N more"), not in words of its own (was: ", ..." for the datasets of an hdf5 file that holds no
weights, "(and N more)" and "(and N more parameters of other shapes)" for an AllenNLP state_dict that does not fit,
whose own wording is pinned in test_allennlp_elmo and test_allennlp_state)."""

from __future__ import annotations

from hf_elmo.convert import _NAMED, _other_hdf5_kind


def test_the_datasets_of_an_hdf5_file_of_no_weights_are_counted_past_those_named():
    names = [f"d{i:02d}" for i in range(_NAMED + 2)]
    shown = ", ".join(names[:_NAMED])
    assert _other_hdf5_kind(names) == f"not an ELMo biLM's weight file (its datasets: {shown} and 2 more)"


def test_the_datasets_of_an_hdf5_file_of_no_weights_are_all_named_when_few():
    names = [f"d{i:02d}" for i in range(_NAMED)]
    assert _other_hdf5_kind(names) == f"not an ELMo biLM's weight file (its datasets: {', '.join(names)})"
