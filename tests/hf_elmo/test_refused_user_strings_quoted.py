"""A string the user gave that the library refuses is quoted cut after 40 characters (``messages.quoted``, as
``described`` cuts a value): ``--device`` and ``--shard`` (was: the whole value, a line of 10 kB for 10 kB)."""

from __future__ import annotations

import pytest

from hf_elmo.devices import resolve_device
from hf_elmo.embed.shards import Shard
from hf_elmo.messages import described, quoted

LONG = "y" * 10_000


def test_quoted_cuts_as_described_does():
    assert quoted("cpx") == "'cpx'"
    assert quoted(LONG) == repr(LONG)[:40] + "..."
    assert described(LONG) == f"the str {quoted(LONG)}"


def test_a_long_unknown_device_is_quoted_cut_short():
    with pytest.raises(ValueError) as refused:
        resolve_device(LONG)
    assert str(refused.value) == f"unknown device {quoted(LONG)}; use cpu, cuda or cuda:N"


def test_a_long_shard_is_quoted_cut_short():
    with pytest.raises(ValueError) as refused:
        Shard.parse(LONG)
    assert str(refused.value).endswith(f", got {quoted(LONG)}")
