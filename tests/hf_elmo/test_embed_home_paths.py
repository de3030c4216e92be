"""``embed_file`` given ``"~/..."`` paths from Python reads and writes in the home folder, as the shell would have
expanded them (was: the input '~/in.txt: no such file', the output in a folder named ``~`` in the current folder,
and a ``model_path`` of ``~`` not found, so its files were not protected)."""

from __future__ import annotations

import h5py
import pytest

from hf_elmo.embed import embed_file

pytestmark = pytest.mark.usefixtures("one_thread")


def test_embed_file_reads_and_writes_the_home_folders_paths(allennlp_model, home, tmp_path):
    (home / "in.txt").write_text("the cat sat .\na dog .\n", encoding="utf-8")
    result = embed_file(allennlp_model, "~/in.txt", "~/out.hdf5", show_progress=False)
    assert result.output == home / "out.hdf5" and result.lines == 2
    with h5py.File(home / "out.hdf5") as written:
        assert written["0"].shape[1] == 4
    assert list((tmp_path / "work").iterdir()) == []


def test_a_model_path_in_the_home_folder_is_protected(allennlp_model, home, tmp_path):
    allennlp_model.save_pretrained(home / "model")
    (home / "in.txt").write_text("the cat sat .\n", encoding="utf-8")
    before = (home / "model" / "config.json").read_bytes()
    with pytest.raises(ValueError, match="is a file of the model"):
        embed_file(allennlp_model, "~/in.txt", "~/model/config.json", model_path="~/model", overwrite=True)
    assert (home / "model" / "config.json").read_bytes() == before
