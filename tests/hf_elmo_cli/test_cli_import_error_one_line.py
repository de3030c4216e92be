"""An ``ImportError`` that reaches the ``elmo`` command's last-resort error line is one line: another package's
message that spans lines (numpy's, transformers' version checks) is said by its first line that says something and
what to do (was: its every line, blank ones included); the package's own one-line errors, which say what to
install, are said as they are."""

from __future__ import annotations

import pytest

import hf_elmo_cli.commands.convert
from hf_elmo_cli import main

REINSTALL = "(a package that elmo needs cannot be imported: pip install --force-reinstall hf-elmo)"


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
