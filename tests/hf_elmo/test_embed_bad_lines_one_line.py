"""elmo embed's refusal of an input's bad lines is one line, the bad lines named in it (was: one line each after it)."""

from __future__ import annotations

import pytest

from hf_elmo.corpus import CorpusError
from hf_elmo.embed.scan import REPORTED_BAD_LINES, scan_input


@pytest.mark.parametrize("n_bad", [1, REPORTED_BAD_LINES, REPORTED_BAD_LINES + 3])
def test_the_bad_lines_are_named_on_the_refusals_one_line(tmp_path, n_bad):
    text = tmp_path / "bad.txt"
    text.write_bytes(b"a b\n" + b"\n" * n_bad + b"c d\n")
    with pytest.raises(CorpusError) as err:
        scan_input(text)
    message = str(err.value)
    assert "\n" not in message
    shown = "; ".join(f"line {n}: blank line" for n in range(2, 2 + min(n_bad, REPORTED_BAD_LINES)))
    more = f"; {n_bad - REPORTED_BAD_LINES} more" if n_bad > REPORTED_BAD_LINES else ""
    assert message.startswith(f"{text}: {n_bad} of {n_bad + 2} lines are not a sentence of whitespace-separated ")
    assert f"tokens in UTF-8 ({shown}{more}); nothing was written: fix or remove them" in message
    assert message.endswith("and run again")
