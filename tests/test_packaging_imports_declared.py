"""Every distribution the three packages import is one pyproject declares: those imported at a module's top level
among the dependencies, those imported inside a function (``elmo export``'s onnx, the plot's matplotlib) among the
dependencies or an extra. A package reached only through another's dependencies (``yaml`` through
huggingface_hub, ``srsly`` and ``wasabi`` through spaCy) would break when that one drops it."""

from __future__ import annotations

import ast
import importlib.metadata
import sys

import pytest
from packaging.requirements import Requirement

from tests.conftest import REPO
from tests.test_packaging_wheel import PACKAGES


def _imported(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The top-level module names ``tree`` imports at its top level (``try`` and ``if`` blocks included, not
    ``if TYPE_CHECKING:``, for the type checker alone), and inside functions."""
    top, inner = set(), set()

    def names(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            return {alias.name.split(".")[0] for alias in node.names}
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            return {node.module.split(".")[0]}
        return set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                continue
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            (inner if inside else top).update(names(child))
            visit(child, inside)

    visit(tree, False)
    return top, inner


def _distributions(modules: set[str]) -> set[str]:
    found = importlib.metadata.packages_distributions()
    ours = set(PACKAGES) | set(sys.stdlib_module_names) | {"__future__"}
    return {Requirement(dist).name.lower() for module in modules - ours for dist in found[module]}


def test_every_imported_distribution_is_declared():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {Requirement(line).name.lower() for line in project["dependencies"]}
    extras = {Requirement(line).name.lower() for lines in project["optional-dependencies"].values() for line in lines}
    top, inner = set(), set()
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            if "pretrained" in path.relative_to(REPO).parts:  # the remote-code copies import relatively
                continue
            file_top, file_inner = _imported(ast.parse(path.read_text(encoding="utf-8")))
            top |= file_top
            inner |= file_inner
    assert _distributions(top) - core == set()
    assert _distributions(inner) - core - extras == set()
