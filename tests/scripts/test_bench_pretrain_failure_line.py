"""A path that fails in scripts/bench_pretrain.py is said by the first line of its error that says something
(``hf_elmo.messages.first_line``; was: its first line, blank when the message starts with a newline, and an
``IndexError`` traceback for an empty message), and the other paths still run."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("\nCUDA out of memory. Tried to allocate 2.00 GiB\nmore", "CUDA out of memory. Tried to allocate 2.00 GiB"),
        ("", "RuntimeError"),
    ],
    ids=["leading-newline", "empty"],
)
def test_a_failed_path_is_said_by_its_first_line_that_says_something(message, said, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where it imports its siblings from, as when run as a script
    module = load_script("scripts/bench_pretrain.py")
    ran = []

    def path_run(preset, implementation, *args):
        ran.append(implementation)
        raise RuntimeError(message)

    monkeypatch.setattr(module, "PathRun", path_run)
    module.main(["--presets", "cpu", "--implementations", "fast", "fused", "--threads", "1", "--device", "cpu"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1:] for line in lines[1:]] == [
        ["fast", "failed:", *said.split()],
        ["fused", "failed:", *said.split()],
    ]
    assert ran == ["fast", "fused"]
