"""What a save_pretrained killed midway (kill -9 while it writes the weights) leaves in its folder: its lock file and
the hidden folder it wrote in. from_pretrained loads the earlier save beside them, the error for a folder whose first
save was killed does not offer that hidden folder as a subfolder to load (was: "it holds a model in its subfolder
'.elmo-saving-...': pass it as from_pretrained's subfolder", a half-written save), and the next save removes them."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers.modeling_utils

from hf_elmo import ElmoModel
from hf_elmo.configuration_elmo import SAVE_LOCK, is_save_aside
from hf_elmo.elmo_weights import InvalidModelError
from tests.hf_elmo.random_inputs import clipped_random_model

FORK = multiprocessing.get_context("fork")


def _save_killed_in_the_weights(model: ElmoModel, folder: Path) -> None:
    """Save ``model`` into ``folder``, the process killed (SIGKILL) once its weights file is partly written."""

    def killed(tensors: dict[str, torch.Tensor], filename: str, *args: Any, **kwargs: Any) -> None:
        Path(filename).write_bytes(b"\x00" * 1000)
        os.kill(os.getpid(), signal.SIGKILL)

    transformers.modeling_utils.safe_save_file = killed
    model.save_pretrained(folder)


def killed_save(model: ElmoModel, folder: Path) -> None:
    """``model.save_pretrained(folder)`` in a forked process, killed (SIGKILL) as it writes the weights."""
    process = FORK.Process(target=_save_killed_in_the_weights, args=(model, folder))
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL


def _left(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name == SAVE_LOCK or is_save_aside(name))


def _other_model() -> ElmoModel:
    model = clipped_random_model()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(1.0)
    return model


def test_the_earlier_save_loads_beside_what_a_killed_save_left_and_the_next_save_removes_it(tmp_path, one_thread):
    folder, earlier, later = tmp_path / "model", clipped_random_model(), _other_model()
    earlier.save_pretrained(folder)
    killed_save(later, folder)
    assert len(_left(folder)) == 2  # the lock file and the hidden folder
    loaded = ElmoModel.from_pretrained(folder)
    assert all(torch.equal(loaded.state_dict()[name], value) for name, value in earlier.state_dict().items())
    later.save_pretrained(folder)
    assert _left(folder) == []
    loaded = ElmoModel.from_pretrained(folder)
    assert all(torch.equal(loaded.state_dict()[name], value) for name, value in later.state_dict().items())


def test_a_folder_whose_first_save_was_killed_is_no_model_and_no_subfolder_is_offered(tmp_path, one_thread):
    folder = tmp_path / "model"
    killed_save(clipped_random_model(), folder)
    (aside,) = [name for name in _left(folder) if name != SAVE_LOCK]
    assert (folder / aside / "config.json").is_file()
    with pytest.raises(InvalidModelError) as caught:
        ElmoModel.from_pretrained(folder)
    assert str(caught.value).startswith(f"{folder} is not an ELMo model folder") and "subfolder" not in str(
        caught.value
    )


def _save_killed_at_the_config(model: ElmoModel, folder: Path, shards: int | None) -> None:
    """Save ``model`` into ``folder`` (``max_shard_size`` ``shards``), the process killed (SIGKILL) as its
    ``config.json`` is about to be moved in, its other files moved."""
    replace = os.replace

    def killed(source: str, target: str) -> None:
        if os.path.basename(target) == "config.json":
            os.kill(os.getpid(), signal.SIGKILL)
        replace(source, target)

    os.replace = killed  # type: ignore[assignment]
    model.save_pretrained(folder, **({} if shards is None else {"max_shard_size": shards}))


@pytest.mark.parametrize(("earlier_shards", "shards"), [(None, 20000), (20000, None), (20000, 5000)])
def test_a_save_killed_between_its_moves_leaves_the_earlier_config_and_is_refused_at_load(
    tmp_path, one_thread, earlier_shards, shards
):
    """The weights move in first (shards before their index, the earlier save's weights files removed once they are
    in), ``config.json`` last: the new weights with the earlier config (another cell_clip) are refused at load
    (``check_saved_whole``; was: loaded silently with the earlier cell_clip)."""
    folder, earlier, later = tmp_path / "model", clipped_random_model(), _other_model()
    later.config.cell_clip = 2.0
    earlier.save_pretrained(folder, **({} if earlier_shards is None else {"max_shard_size": earlier_shards}))
    config = (folder / "config.json").read_bytes()
    process = FORK.Process(target=_save_killed_at_the_config, args=(later, folder, shards))
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL
    assert (folder / "config.json").read_bytes() == config
    with pytest.raises(OSError, match=f"^{re.escape(str(folder))} may hold files of two saves, mixed"):
        ElmoModel.from_pretrained(folder)
