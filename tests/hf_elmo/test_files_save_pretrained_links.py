"""``save_pretrained`` of the model, its config and its tokenizer into a folder that holds symbolic links named as
the files it writes (a Hugging Face cache snapshot: every file a link to a blob) is refused in one line naming the
link, and the file it points to is kept (was: transformers wrote through the link, changing the blob, and with it
every snapshot that shares it); a save path that is a symbolic link to nothing is one line too (was:
``[Errno 17] File exists``)."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer
from tests.hf_elmo.random_inputs import clipped_random_model


def _snapshot(tmp_path, name):
    """A folder whose ``name`` is a link to a blob elsewhere, as a Hugging Face cache snapshot holds it."""
    blob = tmp_path / "blobs" / "0123abcd"
    blob.parent.mkdir()
    blob.write_text("the blob")
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    (snapshot / name).symlink_to(blob)
    return snapshot, blob


@pytest.mark.parametrize(
    ("name", "save"),
    [
        ("model.safetensors", lambda folder: clipped_random_model().save_pretrained(folder)),
        ("config.json", lambda folder: clipped_random_model().config.save_pretrained(folder)),
        ("tokenizer_config.json", lambda folder: ElmoTokenizer().save_pretrained(folder)),
    ],
)
def test_a_save_into_a_folder_of_links_is_refused_and_the_linked_file_kept(tmp_path, name, save):
    snapshot, blob = _snapshot(tmp_path, name)
    with pytest.raises(FileExistsError) as refused:
        save(snapshot)
    assert str(refused.value) == (
        f"{snapshot} holds {name}, a symbolic link (to {blob}) that save_pretrained would write through, changing "
        "the file it points to (a Hugging Face cache snapshot is such links): save to another folder, or remove "
        "the links first"
    )
    assert blob.read_text() == "the blob"
    assert [path.name for path in snapshot.iterdir()] == [name]


def test_links_that_a_save_does_not_write_through_stay_and_the_save_goes_on(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "notes.txt").write_text("mine")
    (folder / "notes.txt").symlink_to(tmp_path / "notes.txt")
    (folder / "data").symlink_to(tmp_path)  # a folder, whatever its name
    (folder / "old.json").symlink_to(tmp_path, target_is_directory=True)
    clipped_random_model().save_pretrained(folder)
    assert (folder / "model.safetensors").is_file() and (tmp_path / "notes.txt").read_text() == "mine"


def test_a_save_path_that_links_to_nothing_is_one_line(tmp_path):
    (tmp_path / "model").symlink_to(tmp_path / "gone")
    with pytest.raises(FileNotFoundError) as refused:
        clipped_random_model().save_pretrained(tmp_path / "model")
    assert str(refused.value) == (
        f"{tmp_path / 'model'} is a symbolic link to {tmp_path / 'gone'}, which does not exist: create the folder "
        "it points to, or give another path"
    )
    assert not (tmp_path / "gone").exists()
