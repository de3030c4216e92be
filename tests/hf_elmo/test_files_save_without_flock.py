"""save_pretrained where there is no flock (Windows; forced here: the module's ``fcntl`` set to None): two processes'
saves into one folder take turns through filelock's lock on the folder's ``.elmo-saving.lock``, so the second neither
removes the hidden folder the first writes in nor writes beside it (was: no lock at all there); the lock file that
filelock leaves, or that another save holds meanwhile, is never pushed, and a folder holding it is an earlier output
that ``--overwrite`` replaces (was: "holds files that elmo did not write (.elmo-saving.lock)"). Two real processes."""

from __future__ import annotations

import errno
import math
import os
import threading
from pathlib import Path
from typing import Any

import huggingface_hub
import pytest
import torch
import transformers.modeling_utils
from safetensors.torch import load_file
from transformers.utils.hub import PushToHubMixin

from hf_elmo import ElmoConfig, configuration_elmo
from hf_elmo.configuration_elmo import SAVE_LOCK, is_save_aside, one_save_at_a_time
from hf_elmo.output_folders import EXPORT_MANIFEST, build_aside
from tests.hf_elmo.random_inputs import clipped_random_model
from tests.hf_elmo.test_files_save_pretrained_one_at_a_time import FORK, SAVES, a_save_under_way
from tests.hf_elmo.test_save_pretrained_push_to_hub import hub  # noqa: F401  # (a fixture)


@pytest.fixture
def no_flock(monkeypatch):
    """``save_pretrained`` as where there is no flock: its processes forked from this one so too."""
    monkeypatch.setattr(configuration_elmo, "fcntl", None)


@pytest.mark.parametrize("saver", SAVES)
def test_a_second_save_waits_for_the_first_and_leaves_the_folder_it_writes_in(tmp_path, one_thread, no_flock, saver):
    folder = tmp_path / "model"
    with a_save_under_way(folder) as end_the_first:  # which asserts that the first save ends well
        (aside,) = [name for name in os.listdir(folder) if is_save_aside(name)]
        second = FORK.Process(target=SAVES[saver]().save_pretrained, args=(folder,))
        second.start()
        second.join(timeout=2)
        assert second.is_alive(), "the second save did not wait for the first"
        assert (folder / aside / "config.json").is_file()
        end_the_first()
        second.join(timeout=60)
        assert second.exitcode == 0


def test_the_folder_is_the_whole_of_the_last_save(tmp_path, one_thread, no_flock):
    folder = tmp_path / "model"
    with a_save_under_way(folder) as end_the_first:
        second = FORK.Process(target=SAVES["model"]().save_pretrained, args=(folder,))
        second.start()
        second.join(timeout=2)
        end_the_first()
        second.join(timeout=60)
    last = SAVES["model"]()
    assert ElmoConfig.from_pretrained(folder).cell_clip == 2.0
    weights = load_file(folder / "model.safetensors")
    assert all(torch.equal(weights[name], tensor) for name, tensor in last.state_dict().items())
    assert not any(is_save_aside(name) for name in os.listdir(folder))


@pytest.fixture
def committed(monkeypatch):
    """The names each push to the Hub uploads, transformers choosing them (``create_commit`` answers nothing)."""
    uploaded: list[list[str]] = []

    def create_commit(self, repo_id, operations, **kwargs):
        uploaded.append(sorted(operation.path_in_repo for operation in operations))

    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit", create_commit)
    return uploaded


@pytest.mark.parametrize("flock", [False, True])
def test_the_lock_file_is_never_pushed(flock, hub, committed, tmp_path, monkeypatch):  # noqa: F811
    """Left by filelock after a save, or taken by another save that starts while this one pushes."""
    if not flock:
        monkeypatch.setattr(configuration_elmo, "fcntl", None)
    folder = tmp_path / "elmo"
    clipped_random_model().save_pretrained(folder)
    upload = PushToHubMixin._upload_modified_files

    def another_save_starts(self, working_dir, *args, **kwargs):
        (folder / SAVE_LOCK).touch()
        return upload(self, working_dir, *args, **kwargs)

    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", another_save_starts)
    SAVES["model"]().save_pretrained(folder, push_to_hub=True, repo_id="me/elmo")
    (uploaded,) = committed
    assert "config.json" in uploaded and SAVE_LOCK not in uploaded


def test_the_pushed_folder_dates_the_lock_file_never_to_change(hub, tmp_path, monkeypatch):  # noqa: F811
    uploads = []
    monkeypatch.setattr(PushToHubMixin, "_upload_modified_files", lambda self, *a, **k: uploads.append(a))
    clipped_random_model().save_pretrained(tmp_path / "elmo", push_to_hub=True, repo_id="me/elmo")
    (_, _, timestamps), *_ = uploads
    assert timestamps[SAVE_LOCK] == math.inf


@pytest.mark.parametrize("kind", ["model", "export"])
def test_overwrite_replaces_an_earlier_output_that_holds_the_lock_file(kind, tmp_path):
    """As filelock leaves it, or a killed save (``save_pretrained``, the tokenizer's in an export)."""
    out = tmp_path / "out"
    if kind == "model":
        clipped_random_model().save_pretrained(out)
    else:
        out.mkdir()
        (out / EXPORT_MANIFEST).write_text("{}")
    (out / SAVE_LOCK).touch()
    with build_aside(out, overwrite=True, kind=kind) as staging:
        (staging / "config.json").write_text("{}")
    assert sorted(os.listdir(out)) == ["config.json"]


def _save_failing_in_the_weights(model: Any, folder: Path, started: Any, go: Any) -> None:
    """Save ``model`` into ``folder``, failing (a full disk) in its weights once ``go`` is set."""

    def failing(*args: Any, **kwargs: Any) -> None:
        started.set()
        assert go.wait(timeout=60)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    transformers.modeling_utils.safe_save_file = failing
    model.save_pretrained(folder)


def test_a_save_that_waited_for_a_failed_first_save_of_the_folder_saves_whole(tmp_path, one_thread, no_flock):
    """The failed first save removes the folder it made, lock file and all: the second makes it again."""
    folder, started, go = tmp_path / "model", FORK.Event(), FORK.Event()
    first = FORK.Process(target=_save_failing_in_the_weights, args=(clipped_random_model(), folder, started, go))
    second = FORK.Process(target=SAVES["model"]().save_pretrained, args=(folder,))
    first.start()
    try:
        assert started.wait(timeout=60)
        second.start()
        second.join(timeout=2)
        assert second.is_alive(), "the second save did not wait for the first"
        go.set()
        first.join(timeout=60)
        second.join(timeout=60)
    finally:
        go.set()
        for process in (first, second) if second.pid is not None else (first,):
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    assert first.exitcode == 1 and second.exitcode == 0
    assert ElmoConfig.from_pretrained(folder).cell_clip == 2.0
    weights = load_file(folder / "model.safetensors")
    assert all(torch.equal(weights[name], tensor) for name, tensor in SAVES["model"]().state_dict().items())


@pytest.mark.parametrize("saved", SAVES)
def test_push_to_hub_uploads_no_lock_file(saved, hub, committed, no_flock):  # noqa: F811
    """transformers' ``push_to_hub`` saves into a new folder and uploads all it holds."""
    SAVES[saved]().push_to_hub("me/elmo")
    (uploaded,) = committed
    assert SAVE_LOCK not in uploaded and uploaded


def test_another_threads_save_waits_too(tmp_path, no_flock, monkeypatch):
    folder, held, waiting, order = str(tmp_path / "model"), threading.Event(), threading.Event(), []
    monkeypatch.setattr(configuration_elmo._logger, "warning", lambda message: waiting.set())

    def the_first_save() -> None:  # holds the folder until the other save waits for it
        with one_save_at_a_time(folder):
            held.set()
            assert waiting.wait(timeout=60)
            order.append("first")

    first = threading.Thread(target=the_first_save)
    first.start()
    assert held.wait(timeout=60)
    with one_save_at_a_time(folder):
        order.append("second")
    first.join(timeout=60)
    assert order == ["first", "second"]


@pytest.mark.parametrize("folder", ["/proc/elmo-model", "/proc/self"])  # cannot be made; cannot be written in
def test_a_save_into_a_folder_that_cannot_be_written_is_one_line(folder, no_flock):
    with pytest.raises(OSError) as refused:
        clipped_random_model().save_pretrained(folder)
    said = str(refused.value)
    assert said.startswith(f"save_pretrained cannot write in {folder} (") and "\n" not in said
    assert said.endswith("): give a folder you may write in") and "Errno" not in said
