"""A symbolic link where elmo locks an output (``OUTPUT.lock``) is refused in one line, before a long run and when
the lock is taken, the link and what it points to kept (was: the lock made where the link points, an empty file
left there, e.g. outside the output's folder, and the link removed when the run ended)."""

from __future__ import annotations

import pytest

from hf_elmo.fileio import check_locked_output, lock_path, sole_writer


@pytest.mark.parametrize("points_to", ["elsewhere/stray", "empty.txt"], ids=["dangling", "an-empty-file"])
def test_a_link_at_the_lock_is_refused_and_kept(tmp_path, points_to):
    (tmp_path / "empty.txt").write_text("")
    out = tmp_path / "out.hdf5"
    lock_path(out).symlink_to(tmp_path / points_to)
    said = (
        f"{lock_path(out)} is a symbolic link (to {tmp_path / points_to}), where elmo locks its output; move it, "
        "or write elsewhere"
    )
    with pytest.raises(FileExistsError) as refused:
        check_locked_output(out)
    assert str(refused.value) == said
    with pytest.raises(FileExistsError) as refused, sole_writer(out):
        pass
    assert str(refused.value) == said
    assert lock_path(out).is_symlink() and sorted(path.name for path in tmp_path.iterdir()) == [
        "empty.txt",
        "out.hdf5.lock",
    ]
