"""bench_conditions.alternated's ``untimed``: what a side needs made before each of its timed runs (the full
activation cache of bench_spacy_pipe.py --full-cache) runs before it, outside its time."""

from __future__ import annotations

from tests.scripts.test_bench_conditions_alternated import alternated, clock, side

__all__ = ["clock"]  # the fixture, used by name


def test_an_untimed_step_runs_before_each_timed_run_of_its_side_outside_its_time(clock):
    ran = []
    sides = {"a": side("a", [1, 3, 5], ran, clock), "b": side("b", [2, 6, 4], ran, clock)}
    fill = side("fill", [100, 100], ran, clock)
    assert alternated(sides, 2, untimed={"b": fill}) == {"a": 4, "b": 5}
    assert ran == ["a", "b", "a", "fill", "b", "a", "fill", "b"]
