"""A ``--json`` output the system refuses (a name too long) is said as the scripts' other failures, ``FILE: REASON``,
without Python's ``[Errno 36]`` (``error_text``)."""

from __future__ import annotations

import errno
import os

import pytest

from tests.scripts.test_bench_json_folders import refusal, source  # noqa: F401  # source: a fixture
from tests.scripts.test_bench_json_output import SCRIPTS


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_json_name_too_long_is_said_without_the_errno(script, source, tmp_path, capsys, monkeypatch):  # noqa: F811
    """Was: "argument --json: [Errno 36] File name too long: '.../aaa...aaa.json'"."""
    json_file = tmp_path / f"{'a' * 300}.json"
    error = refusal(script, source, json_file, capsys, monkeypatch)
    assert error.endswith(f": error: argument --json: {json_file}: {os.strerror(errno.ENAMETOOLONG)}"), error
