"""The README's layout says what ``hf_elmo.convert`` imports; it follows the code (it said "only the configuration
and ``fileio``" after ``described`` and ``some_of`` moved to ``messages``, which ``convert`` imports too)."""

from __future__ import annotations

import re

from tests.test_architecture import REPO, _imported, _modules


def test_the_readme_names_every_module_that_convert_imports():
    said = re.search(
        r"with `convert`, which imports only (.+?), and `embed\.output` lazily", (REPO / "README.md").read_text()
    )
    assert said, "the README no longer says what convert imports"
    named = {f"hf_elmo.{name}" for name in re.findall(r"`(\w+)`", said.group(1))}
    if "the configuration" in said.group(1):
        named.add("hf_elmo.configuration_elmo")
    known = _modules()
    assert _imported("hf_elmo.convert", known["hf_elmo.convert"], known) - {"hf_elmo.embed.output"} == named
