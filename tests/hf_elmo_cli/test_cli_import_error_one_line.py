"""An ``ImportError`` that reaches the ``elmo`` command's last-resort error line is one line: another package's
message that spans lines (numpy's, transformers' version checks) is said by its first line that says something and
what to do (was: its every line, blank ones included); the package's own one-line errors, which say what to
install, are said as they are."""

from __future__ import annotations

import sys

import pytest

import hf_elmo_cli.commands.convert
from hf_elmo_cli import main

#: hf-elmo is not on PyPI: the reinstall is hf_elmo.messages.INSTALL_HF_ELMO's (was: ``pip install --force-reinstall
#: hf-elmo``, which finds nothing of ours), read without importing hf_elmo, whose import may be what failed.
REINSTALL = "(a package that elmo needs cannot be imported: pip install --force-reinstall -e . in its clone)"


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (
            "tokenizers>=0.21 is required for a normal functioning of this module, but found tokenizers==0.19.1.\n"
            "Try: `pip install transformers -U` or `pip install -e '.[dev]'` if you're working with git main",
            f"tokenizers>=0.21 is required for a normal functioning of this module, but found tokenizers==0.19.1. "
            f"{REINSTALL}",
        ),
        (
            "\n\nIMPORTANT: PLEASE READ THIS FOR ADVICE ON HOW TO SOLVE THIS ISSUE!\n\nImporting the numpy C-extensions "
            "failed.\n",
            f"IMPORTANT: PLEASE READ THIS FOR ADVICE ON HOW TO SOLVE THIS ISSUE! {REINSTALL}",
        ),
        (
            'the ONNX export needs onnx and onnxscript, and onnx cannot be imported: pip install "hf-elmo[export]"',
            'the ONNX export needs onnx and onnxscript, and onnx cannot be imported: pip install "hf-elmo[export]"',
        ),
        ("", "ImportError"),
    ],
    ids=["multi-line", "leading-blank-lines", "own-one-line", "empty"],
)
def test_an_import_error_is_one_line(message, said, tmp_path, capsys, monkeypatch):
    def run(args):
        raise ImportError(message)

    monkeypatch.setattr(hf_elmo_cli.commands.convert, "run", run)
    assert main(["convert", str(tmp_path / "options.json"), str(tmp_path / "w.hdf5"), str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err == f"elmo convert: error: {said}\n"


def test_the_reinstall_hint_is_read_without_importing_hf_elmo(tmp_path, capsys, monkeypatch):
    def run(args):
        raise ImportError("numpy cannot be imported\nmore")

    monkeypatch.setattr(hf_elmo_cli.commands.convert, "run", run)
    monkeypatch.setitem(sys.modules, "hf_elmo", None)  # importing hf_elmo fails, as a broken install's does
    assert main(["convert", str(tmp_path / "options.json"), str(tmp_path / "w.hdf5"), str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err == f"elmo convert: error: numpy cannot be imported {REINSTALL}\n"
