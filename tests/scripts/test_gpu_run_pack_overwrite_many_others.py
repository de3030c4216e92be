"""``gpu_run.py pack --overwrite`` refusing an earlier pack that holds many files pack did not write names a few of
them and how many more, as ``assemble --overwrite`` does (``messages.some_of``), in one short line (was: every one
of them, a line as long as the folder)."""

from __future__ import annotations

import pytest

from tests.conftest import load_script
from tests.scripts.test_gpu_run_pack_overwrite import earlier_pack

gpu_run = load_script("scripts/gpu/gpu_run.py")


def test_the_refusal_names_a_few_of_many_stray_files_and_how_many_more(tmp_path, capsys):
    out, argv = earlier_pack(tmp_path, *(f"notes-{index:04d}.txt" for index in range(1000)))
    with pytest.raises(SystemExit) as stopped:
        gpu_run.main(argv)
    assert stopped.value.code == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and len(err) < 400
    shown = ", ".join(f"notes-{index:04d}.txt" for index in range(gpu_run.SHOWN_OTHERS))
    assert f"{out} holds files that pack did not write ({shown} and 995 more), which --overwrite would" in err
    assert len(list(out.iterdir())) == 1002
