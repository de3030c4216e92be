"""Every ``elmo ...`` (or ``python -m hf_elmo_cli ...``, ``torchrun ... -m hf_elmo_cli ...``) command line that
README.md, BENCHMARKS.md, the model cards (and their training.json) and scripts/gpu/README.md give (a line of a
shell block, or a code span) names a command the ``elmo`` CLI has, each ``--option`` it names is one of that
command's own (shown in its ``--help``: not a hidden or retired name, as BENCHMARKS.md's ``--save-dtype`` was),
and a value given to an option of choices (``--format onnx``, ``--layers all|top|average``) is one of them. What
follows a bare ``--`` is another program's (``gpu_run.py start ... -- OPTIONS``: the ``elmo pretrain`` it
starts); a span that quotes an error line (``elmo embed: error: ...``) is no command."""

from __future__ import annotations

import argparse
import re

import pytest

from hf_elmo_cli import COMMANDS
from tests.hf_elmo_cli.test_cli_basics import command_parsers
from tests.scripts.test_docs_script_commands import DOCS, doc_text

#: Fences whose lines are code of another language, where ``elmo = ...`` is no command.
NOT_SHELL = {"python", "ini", "json", "toml", "yaml"}
OPTION = re.compile(r"--[a-z][\w-]*")
#: A shell line that runs the CLI: ``elmo``, ``python -m hf_elmo_cli`` or ``torchrun ... -m hf_elmo_cli`` (after
#: ``VAR=value`` settings), and its words up to a comment.
SHELL_COMMAND = re.compile(
    r"\s*(?:\$ )?(?:[A-Z_]+=\S* )*(?:elmo|\S*python3? -m hf_elmo_cli|torchrun .*?-m hf_elmo_cli)( [^#]*)"
)
#: ``gpu_run.py start ... -- OPTIONS``: the options of the ``elmo pretrain`` it runs on the GPU host.
GPU_RUN_PRETRAIN = re.compile(r"gpu_run\.py start [^#]*?-- ([^#]*)")


def elmo_commands(doc: str) -> list[tuple[str, list[str]]]:
    """Each ``elmo`` command of ``doc``: where (``doc:line``) and its words (comments left off; a line
    ending in ``\\`` joined to the next). A shell line is one of a fenced block of no other language, or one
    indented by four spaces."""
    found, fence, joined, start = [], None, "", 0
    for number, line in enumerate(doc_text(doc).splitlines(), 1):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            continue
        if fence is None and not (joined or line.startswith("    ")):
            found += [(f"{doc}:{number}", match.group(1).split()) for match in re.finditer(r"`(elmo [^`]+)`", line)]
        elif fence not in NOT_SHELL:  # a shell block's line, or an indented block's
            if not joined:
                start = number
            if line.rstrip().endswith("\\"):
                joined += line.rstrip()[:-1] + " "
                continue
            text, joined = joined + line, ""
            if match := SHELL_COMMAND.match(text):
                found.append((f"{doc}:{start}", ["elmo", *match.group(1).split()]))
            elif match := GPU_RUN_PRETRAIN.search(text):
                found.append((f"{doc}:{start}", ["elmo", "pretrain", *match.group(1).split()]))
    return [(where, words) for where, words in found if not words[1].endswith(":") and words[1] != "="]


ALL = [command for doc in DOCS for command in elmo_commands(doc)]


def test_the_docs_give_elmo_commands_of_every_kind():
    assert {words[1] for _, words in ALL} >= set(COMMANDS)
    assert len(ALL) > 40


def problems(words: list[str]) -> list[str]:
    """What in the command ``words`` (``elmo COMMAND ...``) the CLI does not have."""
    if words[1] == "help":  # elmo help [COMMAND], as elmo [COMMAND] --help
        words = ["elmo", *words[2:3], "--help"]
    if words[1] in ("--version", "--help") or words[1].isupper():  # COMMAND: a placeholder
        return []
    parsers = command_parsers()
    if words[1] not in parsers:
        return [f"no command {words[1]!r}"]
    actions = {
        option: action
        for action in parsers[words[1]]._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings
    }
    found = []
    rest = words[2 : words.index("--")] if "--" in words else words[2:]
    for index, word in enumerate(rest):
        for option in OPTION.findall(word) if word.lstrip("[").startswith("--") else []:
            action = actions.get(option.split("=")[0])
            if action is None:
                found.append(f"no option {option}")
            elif action.choices is not None and index + 1 < len(rest):
                given = rest[index + 1].strip("[]").split("|")
                if not any(value.isupper() or "..." in value or value.startswith("-") for value in given):
                    found += [
                        f"{option} {value}: not one of {list(action.choices)}"
                        for value in given
                        if value not in action.choices
                    ]
    return found


@pytest.mark.parametrize(("where", "words"), ALL, ids=[where for where, _ in ALL])
def test_a_documented_elmo_command_is_one_the_cli_has(where, words):
    assert problems(words) == [], f"{where}: {' '.join(words)}"


def test_a_command_option_or_choice_the_cli_lacks_is_found():
    assert problems("elmo embed a b --model m --layers all".split()) == []
    assert problems("elmo embed a b --modle m".split()) == ["no option --modle"]
    assert problems("elmo embedd a b".split()) == ["no command 'embedd'"]
    assert problems("elmo help embed".split()) == problems("elmo help COMMAND".split()) == []
    assert problems("elmo help embd".split()) == ["no command 'embd'"]
    assert problems("elmo export m out/ --format onyx".split()) == [
        "--format onyx: not one of ['onnx', 'torch-export']"
    ]
    assert problems("elmo embed a b --batch-tokens 10".split()) == ["no option --batch-tokens"]  # retired, hidden
