"""The README's Serving block exports a model a new user has, the shipped one (was: ``elmo export my-elmo/
served/``, a folder that only the README's later parts make: 'no model 'my-elmo/'' for whoever read that section
alone); ``tests/test_readme.py`` makes ``served/`` with its first command as written (``serving_export``)."""

from __future__ import annotations

import shlex

import huggingface_hub.constants

from hf_elmo.loading import resolve_model
from tests.test_readme import README, readme_blocks, serving_export


def test_every_serving_export_command_names_a_model_found_in_an_empty_folder_offline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    block = next(block for block in readme_blocks(README.read_text(encoding="utf-8"), "bash") if block.id == "serving")
    commands = [shlex.split(line, comments=True) for line in block.code.splitlines() if line.startswith("elmo export")]
    assert len(commands) >= 2 and commands[0][2:] == serving_export()
    for command in commands:
        assert resolve_model(command[2]).origin == "shipped", command
