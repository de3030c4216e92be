"""Every script command the docs give (``python scripts/NAME.py ...``, ``python3 ...``, ``bash scripts/NAME``,
``../scripts/...`` from a subfolder) names a script that exists, and every ``--option`` it names is in that
script's ``--help`` (its subcommand's, for ``gpu_run.py pack ...``; what follows a bare ``--`` is another
program's): in README.md, BENCHMARKS.md, the model cards (and the commands their training.json records) and
scripts/gpu/README.md, a figure's command must be one that still runs."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

#: The docs whose commands are read: the model cards, and the commands their ``training.json`` records
#: (``figures.commands``, which the cards point to).
DOCS = ["README.md", "BENCHMARKS.md", "scripts/gpu/README.md"] + sorted(
    path.relative_to(REPO).as_posix()
    for pattern in ("*/README.md", "*/training.json")
    for path in (REPO / "hf_elmo" / "pretrained").glob(pattern)
)


def doc_text(doc: str) -> str:
    """``doc``'s text; of a ``training.json``, its recorded commands as a shell block, a line each."""
    if doc.endswith("training.json"):
        commands = json.loads((REPO / doc).read_text(encoding="utf-8"))["figures"]["commands"]
        return "```bash\n" + "\n".join(commands) + "\n```\n"
    return (REPO / doc).read_text(encoding="utf-8")


#: A script run by python or bash, and what follows it up to the end of its code span, comment or table cell.
COMMAND = re.compile(r"\b(?:python3?|bash) +(?:\.\./)*(scripts/[\w/.-]+)([^`#|;&\n]*)")
OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*")


def logical_lines(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` with their number, a line that ends in ``\\`` joined to the next."""
    lines: list[tuple[int, str]] = []
    joined, start = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if not joined:
            start = number
        if line.rstrip().endswith("\\"):
            joined += line.rstrip()[:-1] + " "
            continue
        lines.append((start, joined + line))
        joined = ""
    return lines


def commands(doc: str) -> list[tuple[str, str, str]]:
    """Each script command of ``doc``: where (``doc:line``), the script's path and its arguments."""
    found = []
    for number, line in logical_lines(doc_text(doc)):
        for match in COMMAND.finditer(line):
            found.append((f"{doc}:{number}", match.group(1), match.group(2).split(" -- ")[0]))
    return found


#: Prints, as JSON, the ``--help`` of each script named in argv and of each of its subcommands, each run as
#: ``python SCRIPT [SUBCOMMAND] --help`` would run it, all in this one process (the imports paid once, not per script).
HELPS = """
import contextlib, io, json, re, runpy, sys
from pathlib import Path

def help_of(script, *subcommand):
    sys.argv, sys.path[0], out = [script, *subcommand, "--help"], str(Path(script).parent), io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exit:
        if exit.code:
            sys.exit(f"{' '.join(sys.argv)}: exit status {exit.code}")
    return out.getvalue()

helps = {}
for script in sys.argv[1:]:
    helps[script] = {"": help_of(script)}
    choices = re.search(r"\\{([\\w,-]+)\\}", helps[script][""])
    for subcommand in choices.group(1).split(",") if choices else []:
        helps[script][subcommand] = help_of(script, subcommand)
print(json.dumps(helps))
"""


@functools.cache
def all_script_help() -> dict[str, dict[str, str]]:
    """The ``--help`` of each script the docs name, and of each of its subcommands (``""``: the script's own)."""
    scripts = sorted({script for _, script, _ in ALL if script.endswith(".py") and (REPO / script).is_file()})
    result = subprocess.run(
        [sys.executable, "-c", HELPS, *scripts], capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert result.returncode == 0, f"--help: {result.stderr[-2000:]}"
    return json.loads(result.stdout)


def script_help(script: str, subcommand: str | None = None) -> str:
    help_text = all_script_help()[script][subcommand or ""]
    assert help_text, f"{script} {subcommand or ''} --help printed nothing"
    return help_text


def subcommand_of(script: str, arguments: str) -> str | None:
    """The subcommand that ``arguments`` start with, where the script has subcommands."""
    choices = re.search(r"\{([\w,-]+)\}", script_help(script))
    first = arguments.split()[:1]
    return first[0] if choices and first and first[0] in choices.group(1).split(",") else None


ALL = [command for doc in DOCS for command in commands(doc)]


def test_the_docs_give_script_commands_in_each_file_read():
    named = {where.split(":")[0] for where, _, _ in ALL}
    assert {"README.md", "BENCHMARKS.md", "scripts/gpu/README.md"} <= named
    assert len(ALL) > 50


@pytest.mark.parametrize(("where", "script", "arguments"), ALL, ids=[where for where, _, _ in ALL])
def test_a_documented_script_command_names_a_script_and_options_it_has(where, script, arguments):
    assert (REPO / script).is_file(), f"{where}: {script} does not exist"
    options = OPTION.findall(arguments)
    if not script.endswith(".py"):
        assert not options, f"{where}: {script} takes no --options"
        return
    help_text = script_help(script, subcommand_of(script, arguments)) if options else ""
    missing = [option for option in options if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text)]
    assert not missing, f"{where}: {script} {arguments.strip()}: not in its --help: {missing}"
