"""A path that holds a line break (a file name may) is named on the error's one line, the break written ``\\n``:
in the ``elmo`` command's usage errors and last-resort line and in the scripts' ``error_line`` (was: the line broken
where the name is, the rest of the message on a line of its own)."""

from __future__ import annotations

import errno
import os

from hf_elmo_cli import main
from hf_elmo_cli.commands._args import error_line, one_line


def test_a_missing_input_named_with_a_line_break_is_one_line(tmp_path, capsys):
    missing = tmp_path / "no\nsuch.txt"
    assert main(["embed", str(missing), str(tmp_path / "out.hdf5")]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == f"elmo embed: error: the input {tmp_path}/no\\nsuch.txt: no such file"


def test_an_error_of_the_run_naming_such_a_file_is_one_line(tmp_path, capsys):
    options = tmp_path / "options\n.json"
    options.write_text("{")
    assert main(["convert", str(options), str(tmp_path / "weights.hdf5"), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"elmo convert: error: {tmp_path}/options\\n.json is not valid JSON")


def test_a_scripts_error_line_and_the_rule_itself():
    error = FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), "a\nb\r.txt")
    assert error_line("bench_embed.py", error) == f"bench_embed.py: error: a\\nb\\r.txt: {os.strerror(errno.ENOENT)}"
    assert one_line("one line") == "one line"
