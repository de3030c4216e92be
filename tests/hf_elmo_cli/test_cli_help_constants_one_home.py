"""The defaults and choices that ``elmo embed --help`` states are ``hf_elmo.embed``'s own, read from their one home,
``hf_elmo/embed_options.py`` (stdlib only, read without importing hf_elmo), not written out again in the command
(was: ``["all", "top", "average"]``, ``4096`` and ``10_000`` in hf_elmo_cli/commands/embed.py, kept equal by a test)."""

from __future__ import annotations

import argparse
from pathlib import Path

import hf_elmo.embed
import hf_elmo_cli.commands.embed
from hf_elmo_cli import build_parser


def test_embeds_options_are_the_librarys_own_objects():
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    actions = {action.dest: action for action in subparsers.choices["embed"]._actions}
    assert actions["layers"].choices is hf_elmo.embed.LAYERS


def test_the_embed_command_writes_out_no_default_of_the_library():
    source = Path(hf_elmo_cli.commands.embed.__file__).read_text(encoding="utf-8")
    assert [copy for copy in ('"average"]', "4096", "10_000", '["mean"]') if copy in source] == []
