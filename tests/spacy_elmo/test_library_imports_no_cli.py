"""The library packages, ``spacy_elmo`` and ``hf_elmo``, import nothing of the command line's (``hf_elmo_cli``): the
wording they share with it (``error_text``: an ``OSError`` without Python's ``[Errno N]``) lives in
``hf_elmo.messages``. Was: ``spacy_elmo.cache`` and ``spacy_elmo.layer_weights`` imported it from
``hf_elmo_cli.commands._args``."""

from __future__ import annotations

import subprocess
import sys

import hf_elmo.messages
import hf_elmo_cli.commands._args

WITHOUT_THE_CLI = """
import importlib, pkgutil, sys
sys.modules["hf_elmo_cli"] = None  # importing the command line now raises ImportError
for package in ("spacy_elmo", "hf_elmo"):
    root = importlib.import_module(package)
    for module in pkgutil.walk_packages(root.__path__, package + "."):
        if module.name != "hf_elmo.cli":  # python -m hf_elmo.cli: the command line's own entry point
            importlib.import_module(module.name)
print("imported")
"""


def test_the_library_packages_import_without_the_command_line():
    result = subprocess.run([sys.executable, "-c", WITHOUT_THE_CLI], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1] == "imported"


def test_error_text_has_one_home():
    assert not hasattr(hf_elmo_cli.commands._args, "error_text")
    assert hf_elmo.messages.error_text(FileNotFoundError(2, "No such file or directory", "x.txt")) == (
        "x.txt: No such file or directory"
    )
