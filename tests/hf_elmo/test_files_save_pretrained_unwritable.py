"""``save_pretrained`` of the model, its config and its tokenizer into a folder that cannot be made or written in is
refused in one line naming the folder and the reason, before anything is written, without Python's ``[Errno N]``
(was: ``[Errno 2] No such file or directory: '/proc/elmo-model'``, from transformers, or the lock file named). The
tests run as root, who may write anywhere: ``/proc`` is written in by no one."""

from __future__ import annotations

import pytest

from hf_elmo import ElmoTokenizer
from tests.hf_elmo.random_inputs import clipped_random_model

SAVES = {
    "model": lambda folder: clipped_random_model().save_pretrained(folder),
    "config": lambda folder: clipped_random_model().config.save_pretrained(folder),
    "tokenizer": lambda folder: ElmoTokenizer().save_pretrained(folder),
}


@pytest.mark.parametrize("saver", SAVES)
@pytest.mark.parametrize("folder", ["/proc/elmo-model", "/proc/self"])  # cannot be made; cannot be written in
def test_a_save_into_a_folder_that_cannot_be_written_is_one_line(saver, folder):
    with pytest.raises(OSError) as refused:
        SAVES[saver](folder)
    said = str(refused.value)
    assert said.startswith(f"save_pretrained cannot write in {folder} (") and "\n" not in said
    assert said.endswith("): give a folder you may write in") and "Errno" not in said
