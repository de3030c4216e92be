"""The config's and the tokenizer's ``save_pretrained`` into a folder whose weights (or model card) are symbolic
links, which they do not write, go on and leave the links as they are (was: refused, saying the save would write
through the weights' link); a link named as a file they write is refused still."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer
from tests.hf_elmo.random_inputs import clipped_random_model

SAVES = {
    "config": (lambda folder: clipped_random_model().config.save_pretrained(folder), "config.json"),
    "tokenizer": (lambda folder: ElmoTokenizer().save_pretrained(folder), "tokenizer_config.json"),
}


@pytest.mark.parametrize("saver", SAVES)
def test_links_of_the_weights_and_card_stay_and_the_settings_are_saved(tmp_path, saver):
    save, written = SAVES[saver]
    blobs, folder = tmp_path / "blobs", tmp_path / "model"
    blobs.mkdir()
    folder.mkdir()
    for name in ("model.safetensors", "pytorch_model.bin", "README.md"):
        (blobs / name).write_text("the blob")
        (folder / name).symlink_to(blobs / name)
    save(folder)
    assert (folder / written).is_file() and not (folder / written).is_symlink()
    for name in ("model.safetensors", "pytorch_model.bin", "README.md"):
        assert (folder / name).is_symlink() and (blobs / name).read_text() == "the blob"


@pytest.mark.parametrize("saver", SAVES)
def test_a_link_named_as_a_file_they_write_is_refused_still(tmp_path, saver):
    save, written = SAVES[saver]
    (tmp_path / "blob").write_text("the blob")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / written).symlink_to(tmp_path / "blob")
    with pytest.raises(FileExistsError, match=f"holds {written}, a symbolic link"):
        save(tmp_path / "model")
    assert (tmp_path / "blob").read_text() == "the blob"
