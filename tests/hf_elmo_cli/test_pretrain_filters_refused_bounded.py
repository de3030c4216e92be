"""``elmo pretrain --filters`` text that is no JSON is quoted as every option's refused value is (``quoted``;
was: ``got the str '[1,'``): cut after 40 characters, so that a whole file pasted into the option is not written
back in the error."""

from __future__ import annotations

import pytest

from hf_elmo_cli import build_parser


def test_filters_that_are_long_and_no_json_are_named_in_a_bounded_line(capsys):
    """Was: the whole text, here 16,000 characters, in the usage error."""
    text = "[" + "[1,32]," * 2000  # never closed
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["pretrain", "c.txt", "out", "--epochs", "1", "--filters", text])
    assert stop.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith(f"""argument --filters: must be JSON, e.g. "[[1,32],[2,64]]", got '{text[:39]}...""")
    assert len(last) < 200
