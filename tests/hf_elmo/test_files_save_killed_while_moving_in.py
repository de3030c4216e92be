"""A save_pretrained over an earlier save, killed (kill -9) while it moves its files in from its hidden folder: after
its first shard of the same count as the earlier save's (model-00001-of-00003.safetensors, new, beside the earlier
save's other shards and index), or after all of its weights but before its config.json (new weights, the earlier
cell_clip). from_pretrained of the model, config and tokenizer refuses the folder in one line naming it (was: loaded
silently mixed, the weights of two saves, or new weights with the earlier config), until a save rewrites what the
killed one was moving in: a config save alone leaves it refused, a whole model save makes it load. The list of the
files it was moving in is elmo's (replaced with --overwrite) and never pushed."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import pytest
import torch

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo.configuration_elmo import MOVING_IN, is_save_aside
from hf_elmo.output_folders import others_files
from tests.hf_elmo.random_inputs import clipped_random_model, other_model
from tests.hf_elmo.test_files_save_without_flock import committed  # noqa: F401  # (a fixture)
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)

FORK = multiprocessing.get_context("fork")
SHARDS = 20000  # bytes: three shards of the tiny model


def _save_killed_before_moving(model: ElmoModel, folder: Path, name: str) -> None:
    """Save ``model`` into ``folder`` with shards, the process killed (SIGKILL) as the file ``name`` is moved in."""
    replace = os.replace

    def killed(source: str, destination: str) -> None:
        if is_save_aside(Path(source).parent.name) and Path(destination).name == name:
            os.kill(os.getpid(), signal.SIGKILL)
        replace(source, destination)

    os.replace = killed
    model.save_pretrained(folder, max_shard_size=SHARDS)


def _killed_save(model: ElmoModel, folder: Path, name: str) -> None:
    process = FORK.Process(target=_save_killed_before_moving, args=(model, folder, name))
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL


def _same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(a.state_dict()[name], tensor) for name, tensor in b.state_dict().items())


@pytest.mark.parametrize(
    "killed_before", ["model-00002-of-00003.safetensors", "config.json"], ids=["one-shard-moved", "config-not-moved"]
)
def test_a_save_killed_while_moving_in_is_refused_at_load_until_saved_again(
    tmp_path,
    one_thread,
    killed_before,
    hub,  # noqa: F811
    committed,  # noqa: F811
):
    folder, later = tmp_path / "model", other_model()
    clipped_random_model().save_pretrained(folder, max_shard_size=SHARDS)
    ElmoTokenizer().save_pretrained(folder)
    assert (folder / "model-00003-of-00003.safetensors").is_file()
    _killed_save(later, folder, killed_before)
    for loader in (ElmoModel, ElmoConfig, ElmoTokenizer):
        with pytest.raises(OSError) as caught:
            loader.from_pretrained(folder)
        message = str(caught.value)
        assert message.startswith(f"{folder} may hold files of two saves, mixed: a save_pretrained into it was killed")
        assert "\n" not in message and MOVING_IN in message
    assert others_files(folder, "model") == []  # elmo's: --overwrite and nlp.to_disk replace the folder
    later.config.save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")  # the weights stay of two saves
    assert MOVING_IN not in committed[0] and "config.json" in committed[0]
    with pytest.raises(OSError, match="may hold files of two saves"):
        ElmoModel.from_pretrained(folder)
    later.save_pretrained(folder, max_shard_size=SHARDS)
    loaded = ElmoModel.from_pretrained(folder)
    assert _same_weights(loaded, later) and loaded.config.cell_clip == later.config.cell_clip
    assert not (folder / MOVING_IN).exists()
    ElmoTokenizer.from_pretrained(folder)


def test_a_whole_save_leaves_no_list_of_files_moving_in(tmp_path):
    folder = tmp_path / "model"
    clipped_random_model().save_pretrained(folder, max_shard_size=SHARDS)
    other_model().save_pretrained(folder, max_shard_size=SHARDS)
    ElmoTokenizer().save_pretrained(folder)
    assert not (folder / MOVING_IN).exists()
    assert ElmoModel.from_pretrained(folder).config.cell_clip == 2.0


def test_the_refusal_names_the_files_a_killed_save_left_and_deleting_them_lets_the_folder_load(tmp_path):
    """A save of another class after a killed one does not rewrite the killed save's own files (a head's code): the
    refusal names them, so that the user can save that model again or delete them with the list."""
    folder = tmp_path / "model"
    clipped_random_model().save_pretrained(folder, max_shard_size=SHARDS)
    (folder / MOVING_IN).write_text("modeling_heads.py\nconfig.json\n", encoding="utf-8")
    (folder / "modeling_heads.py").write_text("# a head's code\n", encoding="utf-8")
    with pytest.raises(OSError) as caught:
        ElmoModel.from_pretrained(folder)
    message = str(caught.value)
    assert "config.json, modeling_heads.py (named in .elmo-moving-in)" in message and "\n" not in message
    assert "or delete those files and .elmo-moving-in" in message
    other_model().save_pretrained(folder, max_shard_size=SHARDS)  # rewrites config.json, not the head's code
    with pytest.raises(OSError, match=r"moved in modeling_heads\.py \(named in"):
        ElmoModel.from_pretrained(folder)
    (folder / "modeling_heads.py").unlink()
    (folder / MOVING_IN).unlink()
    assert ElmoModel.from_pretrained(folder).config.cell_clip == 2.0


def _save_moving_in_slowly(model: ElmoModel, folder: Path, moving: object) -> None:
    """Save ``model`` into ``folder``, pausing 2 s as it moves in ``config.json`` (``moving`` set then)."""
    import time

    replace = os.replace

    def slow(source: str, destination: str) -> None:
        if is_save_aside(Path(source).parent.name) and Path(destination).name == "config.json":
            moving.set()  # type: ignore[attr-defined]
            time.sleep(2)
        replace(source, destination)

    os.replace = slow
    model.save_pretrained(folder, max_shard_size=SHARDS)


def test_a_load_while_a_save_moves_its_files_in_waits_for_it_and_loads_the_new_save(tmp_path, one_thread):
    folder, later = tmp_path / "model", other_model()
    clipped_random_model().save_pretrained(folder, max_shard_size=SHARDS)
    moving = FORK.Event()
    process = FORK.Process(target=_save_moving_in_slowly, args=(later, folder, moving))
    process.start()
    try:
        assert moving.wait(timeout=120)
        assert (folder / MOVING_IN).exists()
        loaded = ElmoModel.from_pretrained(folder)
    finally:
        process.join(timeout=120)
    assert process.exitcode == 0
    assert _same_weights(loaded, later) and loaded.config.cell_clip == later.config.cell_clip
