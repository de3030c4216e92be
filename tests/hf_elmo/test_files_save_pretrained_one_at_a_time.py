"""Two processes' ``save_pretrained`` into one folder at once: the second waits for the first to end, so the folder
is one whole save, the last to finish (was: both wrote at once, and a model's save could leave the config of one model
beside the weights of the other). The model's, config's and tokenizer's saves all wait; two real processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers.modeling_utils
from safetensors.torch import load_file

from hf_elmo import ElmoConfig, ElmoModel, ElmoTokenizer
from hf_elmo.configuration_elmo import SAVE_LOCK
from tests.hf_elmo.random_inputs import clipped_random_model, other_model

FORK = multiprocessing.get_context("fork")


def _save_paused_in_the_weights(model: ElmoModel, folder: Path, started: Any, go: Any) -> None:
    """Save ``model`` into ``folder``, stopping before its weights are written (its config is) until ``go`` is set."""
    write_weights = transformers.modeling_utils.safe_save_file

    def paused(*args: Any, **kwargs: Any) -> None:
        started.set()
        assert go.wait(timeout=60)
        write_weights(*args, **kwargs)

    transformers.modeling_utils.safe_save_file = paused
    model.save_pretrained(folder)


@contextmanager
def a_save_under_way(folder: Path) -> Iterator[Callable[[], None]]:
    """A process saving a model into ``folder``, paused before its weights; yields what lets it end."""
    started, go = FORK.Event(), FORK.Event()
    first = FORK.Process(target=_save_paused_in_the_weights, args=(clipped_random_model(), folder, started, go))
    first.start()
    try:
        assert started.wait(timeout=60), "the first save never reached its weights"
        yield go.set
        first.join(timeout=60)
        assert first.exitcode == 0
    finally:
        go.set()
        first.join(timeout=10)
        if first.is_alive():
            first.kill()


#: What each save saves, made in this process: a forked child must not be the first to run torch's threads.
SAVES: dict[str, Callable[[], Any]] = {
    "model": other_model,
    "config": lambda: other_model().config,
    "tokenizer": ElmoTokenizer,
}


def _second_save(saver: str, folder: Path) -> BaseProcess:
    """A process saving ``SAVES[saver]`` into ``folder``, started."""
    second = FORK.Process(target=SAVES[saver]().save_pretrained, args=(folder,))
    second.start()
    return second


@pytest.mark.parametrize("saver", SAVES)
def test_a_second_save_waits_for_the_first_to_end(tmp_path, one_thread, saver):
    folder = tmp_path / "model"
    with a_save_under_way(folder) as end_the_first:
        second = _second_save(saver, folder)
        second.join(timeout=2)
        assert second.is_alive(), "the second save did not wait for the first"
        end_the_first()
        second.join(timeout=60)
        assert second.exitcode == 0


def test_the_folder_is_the_whole_of_the_last_save(tmp_path, one_thread):
    folder = tmp_path / "model"
    with a_save_under_way(folder) as end_the_first:
        second = _second_save("model", folder)
        second.join(timeout=2)
        end_the_first()
        second.join(timeout=60)
    last = other_model()
    assert ElmoConfig.from_pretrained(folder).cell_clip == 2.0
    weights = load_file(folder / "model.safetensors")
    assert all(torch.equal(weights[name], tensor) for name, tensor in last.state_dict().items())
    assert not (folder / SAVE_LOCK).exists()


def test_the_lock_file_that_a_killed_save_left_is_taken_and_removed(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / SAVE_LOCK).touch()  # no process holds its flock
    clipped_random_model().save_pretrained(folder)
    assert not (folder / SAVE_LOCK).exists() and (folder / "model.safetensors").is_file()
