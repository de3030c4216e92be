"""save_pretrained into a folder that holds a save builds the new one in a hidden folder inside it and moves its files
in once it is whole: a save that fails midway (a full disk while the weights are written) leaves the earlier save
whole and loadable, with no hidden folder, where it wrote over it in place (a half-written model.safetensors, and the
earlier save lost). The user's other files stay, a hidden folder that a killed save left goes with the next save, and
a save that succeeds leaves the same files as before, the rewritten ones pushed."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers.modeling_utils
from transformers.utils.hub import PushToHubMixin

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo.configuration_elmo import SAVE_ASIDE, SAVE_LOCK
from tests.hf_elmo.random_inputs import clipped_random_model, other_model
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


def _full_disk_midway(monkeypatch: pytest.MonkeyPatch, after: int = 1) -> None:
    """Make the weights write of the ``after``-th file (a shard or the single file) write some bytes, then fail as a
    full disk does."""
    write_weights, written = transformers.modeling_utils.safe_save_file, []

    def fails(tensors: dict[str, torch.Tensor], filename: str, *args: Any, **kwargs: Any) -> None:
        written.append(filename)
        if len(written) < after:
            return write_weights(tensors, filename, *args, **kwargs)
        Path(filename).write_bytes(b"\x00" * 1000)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(transformers.modeling_utils, "safe_save_file", fails)


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return a.state_dict().keys() == b.state_dict().keys() and all(
        torch.equal(a.state_dict()[name], tensor) for name, tensor in b.state_dict().items()
    )


def _contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@pytest.mark.parametrize(
    ("earlier_shards", "shards", "after"),
    [(None, None, 1), (None, 20000, 2), (20000, None, 1), (20000, 5000, 3)],
    ids=["single-over-single", "shards-over-single", "single-over-shards", "shards-over-shards"],
)
def test_a_save_that_fails_midway_leaves_the_earlier_save_whole(tmp_path, monkeypatch, earlier_shards, shards, after):
    folder, earlier = tmp_path / "model", clipped_random_model()
    earlier.save_pretrained(folder, **({} if earlier_shards is None else {"max_shard_size": earlier_shards}))
    (folder / "README.md").write_text("my notes")
    before = _contents(folder)
    _full_disk_midway(monkeypatch, after)
    with pytest.raises(OSError, match="No space left on device"):
        other_model().save_pretrained(folder, **({} if shards is None else {"max_shard_size": shards}))
    assert _contents(folder) == before  # no hidden folder, no lock, nothing written over
    assert _same_weights(ElmoModel.from_pretrained(folder), earlier)
    assert ElmoConfig.from_pretrained(folder).cell_clip == earlier.config.cell_clip


def test_a_config_save_that_fails_leaves_the_earlier_config(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    clipped_random_model().save_pretrained(folder)
    before = _contents(folder)

    def fails(self: ElmoConfig, *args: Any, **kwargs: Any) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ElmoConfig, "to_json_string", fails)  # after open(..., "w") emptied the file
    with pytest.raises(OSError, match="No space left on device"):
        other_model().config.save_pretrained(folder)
    assert _contents(folder) == before


@pytest.mark.parametrize("saved", ["model", "config", "tokenizer"])
def test_a_save_that_fails_into_a_folder_it_made_leaves_no_folder(tmp_path, monkeypatch, saved):
    monkeypatch.setattr(ElmoConfig, "to_json_string", lambda self, *a, **k: 1 / 0)
    monkeypatch.setattr(ElmoTokenizer, "save_vocabulary", lambda self, *a, **k: 1 / 0)
    model = clipped_random_model()
    saver = {"model": model, "config": model.config, "tokenizer": ElmoTokenizer()}[saved]
    with pytest.raises(ZeroDivisionError):
        saver.save_pretrained(tmp_path / "new" / "model")
    assert list(tmp_path.iterdir()) == [tmp_path / "new"] and not any((tmp_path / "new").iterdir())


def test_the_hidden_folder_that_a_killed_save_left_goes_with_the_next_save(tmp_path):
    folder = tmp_path / "model"
    left = folder / f"{SAVE_ASIDE}abcd_123"
    left.mkdir(parents=True)
    (left / "model.safetensors").write_bytes(b"\x00" * 1000)
    (folder / SAVE_LOCK).touch()
    model = clipped_random_model()
    model.save_pretrained(folder)
    assert not left.exists() and not (folder / SAVE_LOCK).exists()
    assert _same_weights(ElmoModel.from_pretrained(folder), model)


def test_a_save_over_an_earlier_one_leaves_its_files_and_the_users_own(tmp_path):
    fresh, folder = tmp_path / "fresh", tmp_path / "model"
    model = other_model()
    model.save_pretrained(fresh)
    ElmoTokenizer().save_pretrained(fresh)
    clipped_random_model().save_pretrained(folder, max_shard_size=20000)
    ElmoTokenizer(max_characters_per_token=20).save_pretrained(folder)
    (folder / "README.md").write_text("my notes")
    model.save_pretrained(folder)
    ElmoTokenizer().save_pretrained(folder)
    assert _contents(folder) == {**_contents(fresh), "README.md": b"my notes"}
    assert _same_weights(ElmoModel.from_pretrained(folder), model)


@pytest.mark.parametrize("saved", ["model", "config", "tokenizer"])
def test_the_push_after_a_save_over_an_earlier_one_uploads_the_files_it_wrote(
    saved,
    hub,  # noqa: F811
    monkeypatch,
    tmp_path,
):
    uploads = []
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", lambda self, *a, **k: uploads.append(a))
    folder, model = tmp_path / "elmo", clipped_random_model()
    model.save_pretrained(folder)
    ElmoTokenizer().save_pretrained(folder)
    (folder / "notes.txt").write_text("my notes")
    saver = {"model": model, "config": model.config, "tokenizer": ElmoTokenizer()}[saved]
    saver.save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    (working_dir, _, timestamps), *_ = uploads
    written = {name for name in timestamps if name != SAVE_LOCK and (folder / name).stat().st_mtime > timestamps[name]}
    expected = {
        "model": {"config.json", "model.safetensors", "modeling_elmo.py"},
        "config": {"config.json"},
        "tokenizer": {"tokenizer_config.json"},
    }[saved]
    assert Path(working_dir) == folder and expected <= written and "notes.txt" not in written
    assert not any(name.startswith(SAVE_ASIDE) for name in timestamps)
