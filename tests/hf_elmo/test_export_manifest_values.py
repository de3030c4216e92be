"""A damaged ``elmo export`` manifest's refusal names each wrong value as ``messages.described`` does: its type
and its repr cut after 40 characters (was: the value said back whole, kilobytes for a pasted one)."""

from __future__ import annotations

import pytest

from hf_elmo.export import manifest_problems
from hf_elmo.messages import described

WRITTEN = {
    "format": "onnx",
    "file": "model.onnx",
    "dtype": "float32",
    "input": "char_ids",
    "outputs": ["layers", "mask"],
    "max_characters_per_token": 50,
    "num_layers": 3,
    "output_dim": 16,
}
LONG = "x" * 10_000


def test_the_manifest_export_model_writes_has_no_problem():
    assert manifest_problems(dict(WRITTEN)) == []


@pytest.mark.parametrize("key", ["format", "file", "dtype", "input", "outputs", "num_layers"])
def test_a_long_value_is_named_by_its_type_and_cut(key):
    value = [LONG] if key == "outputs" else LONG
    (problem,) = manifest_problems({**WRITTEN, key: value})
    cut = "['" + "x" * 38 if key == "outputs" else "'" + "x" * 39
    assert problem.startswith(f"{key} is the {type(value).__name__} {cut}..., not ")
    assert len(problem) < 120


@pytest.mark.parametrize("value", [["onnx"], {"onnx": 1}])
def test_a_format_that_is_a_list_or_an_object_is_a_problem_named(value):
    """Was: TypeError: unhashable type: 'list' (the format looked up among the formats' names)."""
    assert manifest_problems({**WRITTEN, "format": value}) == [
        f"format is {described(value)}, not one of 'onnx', 'torch-export'"
    ]
