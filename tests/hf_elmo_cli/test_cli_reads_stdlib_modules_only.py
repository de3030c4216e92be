"""The modules of ``hf_elmo`` that the ``elmo`` command reads without importing ``hf_elmo`` (``_args.hf_elmo_module``:
the defaults and choices of ``--help``, the wording of usage errors) import the standard library and one another
only: any other import (numpy, torch) would make every ``--help`` and usage error wait for it, or fail."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import hf_elmo
import hf_elmo_cli

PACKAGE = Path(hf_elmo.__file__).resolve().parent
CLI = Path(hf_elmo_cli.__file__).resolve().parent


def read_by_the_cli() -> set[str]:
    sources = "\n".join(path.read_text(encoding="utf-8") for path in CLI.rglob("*.py"))
    return set(re.findall(r"hf_elmo_module\(\s*[\"']([\w.]+)[\"']\s*\)", sources))


def imports_of(name: str) -> tuple[set[str], set[str]]:
    """(the top-level packages ``name`` imports absolutely, the modules of hf_elmo it imports relatively)."""
    path = PACKAGE.joinpath(*name.split(".")).with_suffix(".py")
    package = name.split(".")[:-1]
    if not path.is_file():  # a package (pretrained): its __init__, whose relative imports are of the package itself
        path, package = PACKAGE.joinpath(*name.split("."), "__init__.py"), name.split(".")
    absolute, relative = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            absolute.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            absolute.add((node.module or "").split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1]
            if node.module:
                relative.add(".".join([*base, node.module]))
            else:
                relative.update(".".join([*base, alias.name]) for alias in node.names)
    return absolute, relative


def test_the_modules_the_cli_reads_import_the_standard_library_and_one_another_only():
    names = read_by_the_cli()
    assert {"messages", "training.options", "export_formats", "embed_options", "torchrun"} <= names
    seen: set[str] = set()
    while names - seen:
        name = sorted(names - seen)[0]
        seen.add(name)
        absolute, relative = imports_of(name)
        assert absolute - {"__future__"} <= set(sys.stdlib_module_names), (name, absolute)
        names |= relative
    for parent in {name.rsplit(".", 1)[0] for name in seen if "." in name}:  # its __init__ runs: it imports nothing
        init = ast.parse((PACKAGE / parent.replace(".", "/") / "__init__.py").read_text(encoding="utf-8"))
        assert not [node for node in ast.walk(init) if isinstance(node, (ast.Import, ast.ImportFrom))], parent
