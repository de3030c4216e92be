"""The layering the README's Layout section draws, checked from the source: no import cycles
among the project's modules (lazy, function-level imports count too), and the code copied into
saved folders for ``trust_remote_code`` imports only torch, transformers, the standard library
and its own siblings."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from transformers.dynamic_module_utils import get_relative_import_files

import hf_elmo

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("hf_elmo", "hf_elmo_cli", "spacy_elmo")


def _modules() -> dict[str, Path]:
    """Module name -> file, for every importable module of ``PACKAGES`` (the code copies inside
    a shipped model folder are not importable modules, and are left out)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            if not all(part.isidentifier() for part in parts):
                continue
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imported(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules that ``module`` imports anywhere in its file (top level, functions,
    ``try`` blocks): ``from pkg import name`` counts as importing ``pkg.name`` when that is a
    module, else ``pkg``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    found.add(f"{base}.{alias.name}")
                elif base in known:
                    found.add(base)
    found.discard(module)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a list of modules, the first repeated at the end) per strongly connected
    component of ``graph`` with more than one module (Tarjan's algorithm), followed by the
    component's other modules in brackets when the cycle does not pass through all of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    cycles = []
    for component in components:
        start = min(component)
        path, seen = [start], {start}
        while True:  # walk inside the component until a module repeats, then cut the path there
            target = min(t for t in graph[path[-1]] if t in component)
            if target in seen:
                cycle = path[path.index(target) :] + [target]
                others = sorted(component - set(cycle))
                cycles.append(cycle + ([f"[also tangled: {', '.join(others)}]"] if others else []))
                break
            path.append(target)
            seen.add(target)
    return cycles


def test_the_modules_import_each_other_without_a_cycle():
    known = _modules()
    graph = {name: _imported(name, path, known) for name, path in known.items()}
    cycles = _cycles(graph)
    assert not cycles, "import cycles (lazy imports count):\n  " + "\n  ".join(" -> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_lazy_import_back(tmp_path):
    """The check above can fail: a module importing, inside a function, one that imports it."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def f():\n    from .high import g\n")
    (package / "high.py").write_text("from pkg.low import f\n")
    known = {"pkg": package / "__init__.py", "pkg.low": package / "low.py", "pkg.high": package / "high.py"}
    graph = {name: _imported(name, path, known) for name, path in known.items()}
    assert graph == {"pkg": set(), "pkg.low": {"pkg.high"}, "pkg.high": {"pkg.low"}}
    assert _cycles(graph) == [["pkg.high", "pkg.low", "pkg.high"]]


def _remote_code_files() -> set[Path]:
    """What ``save_pretrained`` copies into a folder: the file of every class registered for an
    Auto class, and (as transformers does) every file it imports relatively, recursively."""
    classes = [
        hf_elmo.ElmoConfig,
        hf_elmo.ElmoModel,
        hf_elmo.ElmoForBidirectionalLM,
        hf_elmo.ElmoTokenizer,
        hf_elmo.ElmoForTokenClassification,
        hf_elmo.ElmoForSequenceClassification,
    ]
    files = {Path(sys.modules[cls.__module__].__file__) for cls in classes}
    for file in list(files):
        files.update(Path(f) for f in get_relative_import_files(file))
    return files


#: Beyond torch and transformers: numpy (a dependency of both), spaCy, imported by the tokenizer
#: only when asked to split raw text by spaCy's rules, with a one-line error naming what to install, and
#: filelock (huggingface_hub's, so transformers'), the save lock of configuration_elmo where there is no flock.
ALSO_ALLOWED = {"numpy": None, "spacy": "word_splitting.py", "filelock": "configuration_elmo.py"}


def test_remote_code_imports_only_torch_transformers_the_standard_library_and_its_siblings():
    files = _remote_code_files()
    assert {f.name for f in files} >= {
        "elmo_inputs.py",
        "elmo_layers.py",
        "elmo_weights.py",
        "modeling_elmo.py",
        "configuration_elmo.py",
        "tokenization_elmo.py",
        "tokenizer_settings.py",
        "char_ids.py",
        "word_splitting.py",
    }
    allowed = {"torch", "transformers"} | set(sys.stdlib_module_names)
    problems = []
    for file in sorted(files):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.ImportFrom):  # relative: must be a sibling that travels too
                sibling = file.parent / f"{(node.module or '').split('.')[0]}.py"
                if not node.module or node.level != 1 or sibling not in files:
                    problems.append(
                        f"{file.name}:{node.lineno}: relative import of {'.' * node.level}{node.module} "
                        "(only sibling files that are copied with it)"
                    )
                continue
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in allowed and (top not in ALSO_ALLOWED or ALSO_ALLOWED[top] not in (None, file.name)):
                    problems.append(f"{file.name}:{node.lineno}: import {name}")
    assert not problems, "remote code must import only torch, transformers and its siblings:\n  " + "\n  ".join(
        problems
    )
