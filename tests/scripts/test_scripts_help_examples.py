"""A script's ``--help`` (its docstring, ``description=__doc__``) shows its example commands as written:
a docstring that is no raw string reads an example's ``\\`` at the end of a line as a line continuation,
so ``--help`` ran the two lines into one with a gap of spaces (bench_spacy.py, bench_pretrain.py)."""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO

SCRIPTS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "scripts").rglob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_docstring_reads_as_written(script):
    source = (REPO / script).read_text(encoding="utf-8")
    body = ast.parse(source).body
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
        return  # no docstring
    literal = ast.get_source_segment(source, body[0].value)
    assert literal is not None
    written = literal.lstrip("rRuU")[3:-3]  # between the triple quotes
    assert body[0].value.value == written, f"{script}: its docstring has a backslash escape; make it a raw string"
