"""``hf_elmo.torchrun``: torchrun's RANK, WORLD_SIZE and LOCAL_RANK, read in one place; a value that is no
whole number (of its range) is one line naming the variable, its value and what to do."""

from __future__ import annotations

import pytest

from hf_elmo import torchrun


def test_a_process_started_without_torchrun_is_rank_0_of_1_without_a_local_rank(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert (torchrun.rank(), torchrun.world_size(), torchrun.local_rank(), torchrun.local_world_size()) == (
        0,
        1,
        None,
        None,
    )


def test_the_values_torchrun_sets_are_read(monkeypatch):
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert (torchrun.rank(), torchrun.world_size(), torchrun.local_rank(), torchrun.local_world_size()) == (3, 4, 1, 2)


@pytest.mark.parametrize(
    "name, value, least",
    [
        ("RANK", "abc", ""),
        ("RANK", "", ""),
        ("RANK", "-1", ""),
        ("RANK", " 1", ""),
        ("WORLD_SIZE", "0", " >= 1"),
        ("WORLD_SIZE", "two", " >= 1"),
        ("LOCAL_RANK", "-1", ""),
        ("LOCAL_RANK", "1.0", ""),
        ("LOCAL_WORLD_SIZE", "0", " >= 1"),
    ],
)
def test_a_value_that_is_no_whole_number_is_refused_in_one_line_naming_it(name, value, least, monkeypatch):
    """Was (RANK, WORLD_SIZE, LOCAL_RANK): int()'s 'invalid literal for int() with base 10' in a traceback."""
    monkeypatch.setenv(name, value)
    read = {
        "RANK": torchrun.rank,
        "WORLD_SIZE": torchrun.world_size,
        "LOCAL_RANK": torchrun.local_rank,
        "LOCAL_WORLD_SIZE": torchrun.local_world_size,
    }[name]
    with pytest.raises(ValueError) as refused:
        read()
    assert str(refused.value) == (
        f"the environment's {name}={value!r} is no whole number{least}, as torchrun sets it: "
        f"unset {name}, or start the command with torchrun"
    )
