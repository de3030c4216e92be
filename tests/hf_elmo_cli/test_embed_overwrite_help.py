"""`elmo embed --help` says what --overwrite never replaces: the files of a sharded run beside those of a run
without shards, nor the reverse (both refused with --overwrite too), so that the refusal is no surprise."""

from __future__ import annotations

import pytest

from hf_elmo.cli import main as elmo_main


def test_the_overwrite_help_says_it_never_replaces_another_kind_of_runs_files(capsys):
    with pytest.raises(SystemExit):
        elmo_main(["embed", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "replace an existing OUTPUT, or an unfinished run with other settings (never the files of a sharded run "
        "beside those of a run without shards, nor the reverse: move them first)"
    ) in help_text
