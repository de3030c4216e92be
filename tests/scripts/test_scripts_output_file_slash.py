"""The scripts' output files given with a trailing slash, naming a folder, are a usage error in one line that says to
name the file (``_args.file_path``: ``hf_elmo.fileio.check_names_a_file``), before anything is read or written (was:
``Path`` dropped the slash, and ``convert_corpora.py conll2003 in.conll corpus/`` wrote a file named ``corpus``; bench_spacy.py's
``--plot-layer-weights figs/a.png/`` a file ``figs/a.png``, where spacy_elmo.layer_weights refused the same path)."""

from __future__ import annotations

import importlib
import os

import pytest

from tests.conftest import REPO, load_script

CASES = {
    "convert_corpora": (["conll2003", "in.conll", "{out}"], "output", ".spacy file", "train.spacy"),
    "wikitext_sentences": (["wiki.test.tokens", "{out}"], "out", "text file", "wiki.test.txt"),
    "layer_weights": (["pipeline", "{out}"], "OUTPUT", "PNG file", "layers.png"),
    "bench_inference": (["--no-reference", "--json", "{out}"], "--json", "JSON file", "rows.json"),
    "bench_onnx": (["--json", "{out}"], "--json", "JSON file", "rows.json"),
    "bench_embed": (["in.txt", "--json", "{out}"], "--json", "JSON file", "rows.json"),
    "bench_spacy": (["--elmo", "x", "--plot-layer-weights", "{out}"], "--plot-layer-weights", "PNG file", "layers.png"),
}


@pytest.mark.parametrize("script", sorted(CASES))
def test_an_output_file_ending_with_a_slash_is_one_usage_error(script, tmp_path, capsys, monkeypatch):
    argv, argument, what, example = CASES[script]
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # the benchmarks' shared_data, as when run as scripts
    if script == "layer_weights":
        main = importlib.import_module("spacy_elmo.layer_weights").main
    else:
        main = load_script(f"scripts/{script}.py").main
    out = f"corpus{os.sep}"
    with pytest.raises(SystemExit) as exited:
        main([arg.format(out=out) for arg in argv])
    assert exited.value.code == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f"error: argument {argument}: the output {out} ends with '/', naming a folder; name the {what} to write "
            f"(e.g. {os.path.join('corpus', example)})"
        )
    )
    assert list(tmp_path.iterdir()) == []
