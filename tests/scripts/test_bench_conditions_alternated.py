"""bench_conditions.alternated, the one home of the benchmarks' alternating passes (bench_overheads.py and
bench_spacy_pipe.py; was: a copy in each): the sides run in turn, each ``repeat`` times after one untimed
warm-up (each side once, or the ``warm_up`` given), and the median of each side's passes is its figure."""

from __future__ import annotations

import pytest

from tests.conftest import load_script

alternated = load_script("scripts/bench_conditions.py").alternated


@pytest.fixture
def clock(monkeypatch):
    """``time.perf_counter`` as the sides advance it: each run adds its seconds."""
    now = [0.0]
    monkeypatch.setattr("time.perf_counter", lambda: now[0])
    return now


def side(name, seconds, ran, clock):
    def run():
        ran.append(name)
        clock[0] += seconds.pop(0)

    return run


def test_the_sides_alternate_after_each_warms_up_once_and_their_medians_are_said(clock):
    ran = []
    sides = {"a": side("a", [9, 1, 5, 3], ran, clock), "b": side("b", [9, 2, 8, 4], ran, clock)}
    assert alternated(sides, 3) == {"a": 3, "b": 4}
    assert ran == ["a", "b"] * 4


def test_a_warm_up_given_runs_instead_of_each_side(clock):
    ran = []
    sides = {"a": side("a", [1, 3], ran, clock), "b": side("b", [2, 6], ran, clock)}
    assert alternated(sides, 2, warm_up=side("warm", [100], ran, clock)) == {"a": 2, "b": 4}
    assert ran == ["warm", "a", "b", "a", "b"]
