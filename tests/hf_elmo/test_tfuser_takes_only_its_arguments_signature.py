"""``takes_only_its_arguments`` on a forward with ``**kwargs`` or keyword-only arguments: a required
argument is one the caller must name or place (not ``*args``/``**kwargs``, which were counted as
required: such a forward was always refused as "missing kwargs"), and a keyword-only one left out
is refused in its one line (it was skipped when positional arguments were given)."""

from __future__ import annotations

import re

import pytest
from torch import nn

from hf_elmo.elmo_inputs import CHAR_ID_ROWS, takes_only_its_arguments


class WithKwargs(nn.Module):
    @takes_only_its_arguments
    def forward(self, input_ids, mask=None, **kwargs):
        return input_ids, mask, kwargs


class WithKeywordOnly(nn.Module):
    @takes_only_its_arguments
    def forward(self, input_ids, mask=None, *, labels):
        return input_ids, mask, labels


def test_a_forward_with_kwargs_runs_and_is_not_refused_as_missing_them():
    assert WithKwargs()(1) == (1, None, {})
    assert WithKwargs()(input_ids=1, mask=2) == (1, 2, {})


def test_a_forward_with_kwargs_names_only_its_named_arguments_when_refusing():
    message = f"WithKwargs.forward() is missing input_ids: it takes input_ids, mask ({CHAR_ID_ROWS})"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        WithKwargs()(mask=2)


@pytest.mark.parametrize("args", [(1,), (1, 2)])
def test_a_keyword_only_argument_left_out_is_refused_in_one_line(args):
    message = f"WithKeywordOnly.forward() is missing labels: it takes input_ids, mask, labels ({CHAR_ID_ROWS})"
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        WithKeywordOnly()(*args)


def test_a_keyword_only_argument_given_runs():
    assert WithKeywordOnly()(1, 2, labels=3) == (1, 2, 3)
    assert WithKeywordOnly()(input_ids=1, labels=3) == (1, None, 3)
