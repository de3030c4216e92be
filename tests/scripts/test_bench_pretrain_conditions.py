"""scripts/bench_pretrain.py says the conditions of its figures (machine and its load, threads,
batch, seed) and prints each path's ratio beside its tokens/s, so that runs on a shared machine
are compared within one run."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO, load_script
from tests.scripts.test_bench_pretrain import TINY_RUN, _bench

#: A result line: the path, tokens/s, the ratio and the path it is against.
ROW = r"^cpu\s+([\w+]+)\s.*->\s+(\d+) tokens/s,\s+[\d.]+ MiB kept,\s+([\d.]+)x (\w+)$"


def test_the_header_names_the_machine_its_load_the_threads_the_batch_and_the_seed():
    header = _bench("--implementations", "fast").splitlines()[0]
    assert re.search(r"^device: CPU .+ \(\d+ cores, load \d+\.\d\); ", header), header
    assert "; threads 1; 256 padded tokens a step; " in header, header
    assert "; seed 0 (text and weights); " in header, header


def test_each_path_is_against_the_first_and_a_checkpointed_one_against_itself_unchecked():
    out = _bench("--implementations", "fast", "fused", "--checkpointing")
    rows = {m.group(1): (float(m.group(2)), float(m.group(3)), m.group(4)) for m in re.finditer(ROW, out, re.M)}
    assert {label: against for label, (_, _, against) in rows.items()} == {
        "fast": "fast",
        "fast+ckpt": "fast",
        "fused": "fast",
        "fused+ckpt": "fused",
    }, out
    for rate, ratio, against in rows.values():
        # the printed tokens/s are rounded to a unit, the ratio to 0.01
        assert ratio == pytest.approx(rate / rows[against][0], abs=0.01 + 2 / rows[against][0]), out


def test_the_paths_of_a_preset_take_their_timed_steps_in_turn(monkeypatch, capsys):
    """So that a change in a shared machine's load falls on each alike (was: each path's steps
    all together, one path after the other)."""
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from, as when run as a script
    module = load_script("scripts/bench_pretrain.py")
    steps = []
    monkeypatch.setattr(module, "train_step", lambda model, *args: steps.append(model.config.bilm_implementation))
    module.main([*TINY_RUN, "--steps", "2", "--implementations", "fast", "fused"])
    assert steps == ["fast", "fused"] + ["fast", "fused"] * 2  # the warm-ups, then the timed steps
    assert len(re.findall(ROW, capsys.readouterr().out, re.M)) == 2
