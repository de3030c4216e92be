"""README.md's section on the project template names every variable of project/project.yml and lists each
workflow's commands as the template runs them (was: `repo` left out of the variables)."""

from __future__ import annotations

import re

import srsly

from tests.conftest import REPO

PROJECT = srsly.read_yaml(REPO / "project" / "project.yml")
README = (REPO / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("### The project template (`project/`)") :].split("\n## ")[0]


def test_the_readme_names_every_variable_of_the_template():
    named = set(re.findall(r"`([a-z_]+)`", SECTION)) | set(re.findall(r"--vars\.([a-z_]+)", SECTION))
    assert set(PROJECT["vars"]) - named == set()


def test_the_readme_lists_each_workflows_commands_in_order():
    for workflow, commands in PROJECT["workflows"].items():
        line = re.search(rf"python -m weasel run {workflow} +# (.+)", SECTION)
        assert line is not None, workflow
        if workflow == "ner":
            assert line.group(1) == ", ".join(commands)
        else:  # "the same for SST-2 (no package step)"
            assert line.group(1) == "the same for SST-2 (no package step)"
            assert [c.replace("textcat", "ner") for c in commands] == PROJECT["workflows"]["ner"][:-1]
