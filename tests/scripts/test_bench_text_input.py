"""bench_inference.py and bench_onnx.py read ``--text`` before any run, as every corpus is read
(``_args.sentences_option``: ``hf_elmo.corpus.read_corpus``): a latin-1 byte, an empty file or one token a line is
one usage error naming the file (was: a ``UnicodeDecodeError`` traceback once the script had started, or, for an
empty file, a run of no sentence), and a gzip file is read decompressed."""

from __future__ import annotations

import gzip

import pytest

from hf_elmo_cli.commands._args import sentences_option
from tests.conftest import REPO, load_script


@pytest.mark.parametrize("script", ["bench_inference", "bench_onnx"])
@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            "a caf\xe9 .\n".encode("latin-1"),
            "{path}:1: not valid UTF-8 (byte 0xe9 at character 6); --text must be UTF-8 text",
        ),
        (b"", "{path} holds no tokens (empty file or only blank lines)"),
    ],
    ids=["latin-1", "empty"],
)
def test_a_text_that_is_no_corpus_is_one_usage_error_before_any_run(script, data, said, tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # their shared_data, as when run as scripts
    module = load_script(f"scripts/{script}.py")
    monkeypatch.setattr(module, "bench", lambda *args: pytest.fail("a run started"))
    path = tmp_path / "text.txt"
    path.write_bytes(data)
    with pytest.raises(SystemExit) as exited:
        module.main(["--text", str(path), "--no-reference"] if script == "bench_inference" else ["--text", str(path)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f": error: {said.format(path=path)}" in err.splitlines()[-1] and "Traceback" not in err


def test_a_gzip_text_is_read_decompressed(tmp_path):
    path = tmp_path / "text.txt.gz"
    path.write_bytes(gzip.compress(b"the cat sat .\n\nhello world\n"))
    assert sentences_option(None, "--text", path) == [["the", "cat", "sat", "."], ["hello", "world"]]
