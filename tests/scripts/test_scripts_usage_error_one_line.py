"""A script's usage error is one line (``SuggestingParser``, as the elmo command's): a word with a line break in it
is said with ``\\n`` (was: the usage error broken over two lines, its second with no program name)."""

from __future__ import annotations

import pytest

from tests.conftest import REPO, load_script

#: Each script with what its command line needs but the unrecognized word.
SCRIPTS = {
    "bench_inference": [],
    "bench_onnx": [],
    "bench_overheads": ["hook"],
    "bench_pretrain": [],
    "bench_spacy": ["--elmo", "model"],
    "bench_spacy_pipe": [],
    "convert_corpora": ["sst", "in.txt", "out.spacy"],
    "wikitext_sentences": ["in.txt", "out.txt"],
}


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_an_unrecognized_word_with_a_line_break_is_one_line(script, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))  # where they import their siblings from
    module = load_script(f"scripts/{script}.py")
    with pytest.raises(SystemExit) as exit:
        module.main([*SCRIPTS[script], "--no-such-option", "a\nb"])
    assert exit.value.code == 2
    error = capsys.readouterr().err
    assert ": error: unrecognized arguments: --no-such-option a\\nb" in error.splitlines()[-1], error
