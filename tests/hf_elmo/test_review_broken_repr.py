"""A refused value whose repr fails is named by its type: the refusal is raised, not the repr's error."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoConfig
from hf_elmo.char_ids import token_to_char_ids
from hf_elmo.configuration_elmo import ElmoConfigError
from hf_elmo.messages import described


class BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("repr failed")


def test_a_value_whose_repr_fails_is_described_by_its_type():
    assert described(BrokenRepr()) == "a value of type BrokenRepr"


def test_refusals_of_a_value_whose_repr_fails_are_raised_in_one_line():
    """Was: the RuntimeError of its repr, raised while the refusal was being written."""
    with pytest.raises(TypeError, match=r"^tokens must be str, got a value of type BrokenRepr$"):
        token_to_char_ids(BrokenRepr())
    with pytest.raises(ElmoConfigError, match=r"^ElmoConfig\.lstm_dim must be .*, got a value of type BrokenRepr$"):
        ElmoConfig(lstm_dim=BrokenRepr())
